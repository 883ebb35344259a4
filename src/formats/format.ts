import type { JsonObject } from "../json";
import type { CallResult } from "../result";
import type { Tool } from "../tool";
import type { ToolCall } from "../tool-call";

export type Decoded = { ok: true; calls: ToolCall[] } | { ok: false; message: string };

// Thrown by toolDefinition(); defined with the schema walkers that raise it.
export { FormatSchemaError } from "../schema/walk";

/**
 * One chat API's shapes: what a chat app has at hand (decode) and what it must send back (encode),
 * plus how that API wants tool definitions. Every module in formats/ exports one of these.
 */
export interface Format<Definition = unknown, Answer = unknown, Item = unknown> {
  /** Its name in routes (/v1/calls/:format) and listings; FORMATS (index.ts) registers it under this name. */
  readonly name: string;
  /** Does this body look like this format's model output? Used to detect the format of POST /v1/calls. */
  detect(body: unknown): boolean;
  /** Never throws: bad shapes give { ok: false, message }. */
  decode(body: unknown): Decoded;
  /** Results in input order → exactly what the app appends to its conversation. */
  encode(results: readonly CallResult[]): Answer;
  /**
   * One result → the one item of the answer that carries it (OpenAI: the tool message; Responses: the
   * function_call_output item; Anthropic: the tool_result block; Gemini: the functionResponse part;
   * MCP: the CallToolResult). encode is these items in the answer's wrapper; an app answering one call
   * at a time builds only the item.
   */
  encodeResult(result: CallResult): Item;
  /** The tool as this API declares it; throws FormatSchemaError when the schema cannot be expressed. */
  toolDefinition(tool: Tool): Definition;
  /** A model's output holding these calls, as this API returns it (decode reads them back): examples, tests. */
  modelOutput(calls: readonly SampleCall[]): unknown;
}

/** A call for modelOutput(): its id, the tool's name and the arguments. */
export interface SampleCall {
  id: string;
  name: string;
  args: JsonObject;
}
