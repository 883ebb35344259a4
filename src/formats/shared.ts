import type { CallOutput, Content } from "../result";
import type { Decoded } from "./format";
import type { ToolCall } from "../tool-call";

/** Helpers the format modules share: shape checks that never throw, ids, content for text-only APIs. */

/** Any non-array object, class instances included (SDK responses may be classes, e.g. Gemini's). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Thrown inside a decoder to stop at the first bad shape; `decodeSafely` turns it into { ok: false }. */
export class DecodeError extends Error {}

/**
 * Run a decoder on a body so that nothing escapes: bad shapes (or getters that throw) become a message.
 * The body is passed along rather than closed over: decode runs on every request.
 */
export function decodeSafely(decode: (body: unknown) => ToolCall[], body: unknown): Decoded {
  try {
    return { ok: true, calls: decode(body) };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, message: error.message };
    return { ok: false, message: `Could not read the body: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A required non-empty string field (ids, names), or a DecodeError saying where and what was found. */
export function requireString(holder: Record<string, unknown>, key: string, at: string): string {
  const value = holder[key];
  if (typeof value === "string" && value !== "") return value;
  const found = value === undefined ? "missing" : value === "" ? "empty" : `${describe(value)}, not a string`;
  throw new DecodeError(`${at}.${key} is ${found}.`);
}

export function requireRecord(value: unknown, at: string): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw new DecodeError(value === undefined ? `${at} is missing.` : `${at} must be an object, got ${describe(value)}.`);
}

export function requireArray(value: unknown, at: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new DecodeError(value === undefined ? `${at} is missing.` : `${at} must be an array, got ${describe(value)}.`);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * An id for a call whose format carries none (MCP, Gemini without ids). The prefix makes generated ids
 * recognisable, so an encoder can leave them out of its answer.
 */
export function generateId(prefix: string): string {
  return `${prefix}${crypto.randomUUID()}`;
}

/** The content a model should read: the tool's content, or its structured output as JSON text. */
export function visibleContent(output: CallOutput): Content[] {
  if (output.content.length > 0 || output.structured === undefined) return output.content;
  return [{ type: "text", text: JSON.stringify(output.structured) }];
}
