import type { Format, FormatName } from "./format";
import { anthropic } from "./anthropic";
import { gemini } from "./gemini";
import { mcp } from "./mcp";
import { openai } from "./openai";
import { openaiResponses } from "./openai-responses";

export { anthropic, gemini, mcp, openai, openaiResponses };
export { toCallToolResult } from "./mcp";
export * from "./format";

/** Every format by name, each keeping its precise definition and answer types. */
export const FORMATS = Object.freeze({
  openai,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
  mcp,
} satisfies Record<FormatName, Format>);

/** The format of that name, or undefined for a name toolgate does not know. */
export function getFormat(name: string): Format | undefined {
  return Object.hasOwn(FORMATS, name) ? (FORMATS[name as FormatName] as Format) : undefined;
}

/**
 * Each detector looks for its API's own markers (chat.completion / function.arguments, type
 * "function_call", type "tool_use", functionCall, tools/call or bare { name, arguments }), so at most
 * one matches a real body; the order only settles hand-made bodies that mix markers, most specific first.
 */
const DETECTION_ORDER: readonly Format[] = [openai, openaiResponses, anthropic, gemini, mcp];

/** Which format a body of model output is in; undefined when none (or an empty list) matches. */
export function detectFormat(body: unknown): Format | undefined {
  try {
    return DETECTION_ORDER.find((format) => format.detect(body));
  } catch {
    return undefined;
  }
}
