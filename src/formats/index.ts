import type { Format } from "./format";
import { anthropic } from "./anthropic";
import { gemini } from "./gemini";
import { mcp } from "./mcp";
import { openai } from "./openai";
import { openaiResponses } from "./openai-responses";

export { anthropic, gemini, mcp, openai, openaiResponses };
export { toCallToolResult } from "./mcp";
export * from "./format";

/**
 * Every format by name, each keeping its precise definition and answer types: the one list a new
 * format joins (routes, listings, the client's types and the console derive from it). Also the order
 * of detection: each detector looks for its API's own markers (chat.completion / function.arguments,
 * type "function_call", type "tool_use", functionCall, tools/call or bare { name, arguments }), so at
 * most one matches a real body; the order only settles hand-made bodies that mix markers, most
 * specific first.
 */
export const FORMATS = Object.freeze({
  openai,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
  mcp,
});

export type FormatName = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.freeze(Object.keys(FORMATS) as FormatName[]);
const ALL: readonly Format[] = Object.values(FORMATS);

/** The format of that name, or undefined for a name toolgate does not know. */
export function getFormat(name: string): Format | undefined {
  return Object.hasOwn(FORMATS, name) ? (FORMATS[name as FormatName] as Format) : undefined;
}

/** Which format a body of model output is in; undefined when none (or an empty list) matches. */
export function detectFormat(body: unknown): Format | undefined {
  try {
    return ALL.find((format) => format.detect(body));
  } catch {
    return undefined;
  }
}
