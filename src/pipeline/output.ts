import type { JsonValue } from "../json";
import { NotJson, toJsonText } from "./output-json";
import type { CallOutput, Content } from "../result";
import { isRichResult } from "../tool";

/**
 * Whatever run() returned → the one result shape, or why it cannot be one. Strings become text; JSON
 * values become structured output plus their JSON text; rich results pass through. Values JSON cannot
 * carry (a function, NaN or ±Infinity, a BigInt, a cycle) are an error naming what and where (the
 * string), never a success with a silent null. No wrapper object: this runs on every call.
 */
export function normaliseOutput(returned: unknown): CallOutput | string {
  if (returned === undefined) return { content: [] };
  if (typeof returned === "string") return { content: [{ type: "text", text: returned }] };
  if (isRichResult(returned)) {
    const content = checkContent(returned.content);
    if (typeof content === "string") return content;
    const output: CallOutput = { content };
    if (returned.truncated) output.truncated = true;
    if (returned.structured !== undefined) {
      const text = toJsonText(returned.structured);
      if (text instanceof NotJson) return `The tool's structured output is not JSON: ${text.problem}.`;
      if (text === undefined) return `The tool's structured output is not JSON (${typeof returned.structured}).`;
      output.structured = returned.structured;
    }
    return output;
  }
  const text = toJsonText(returned);
  if (text instanceof NotJson) return `The tool returned a value that is not JSON: ${text.problem}.`;
  if (text === undefined) return `The tool returned a value that is not JSON (${typeof returned}).`;
  return { content: [{ type: "text", text }], structured: returned as JsonValue };
}

/** What an output schema checks: the structured part of a rich result, else the value itself. */
export function outputValue(returned: unknown): unknown {
  return isRichResult(returned) ? returned.structured : returned;
}

function isEmbeddedResource(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { uri, text, blob } = value as { uri?: unknown; text?: unknown; blob?: unknown };
  return typeof uri === "string" && (typeof text === "string" || typeof blob === "string");
}

function checkContent(content: unknown): Content[] | string {
  if (!Array.isArray(content)) return "Rich content must be an array.";
  for (let i = 0; i < content.length; i++) {
    const item: unknown = content[i];
    const type = (item as { type?: unknown } | null)?.type;
    if (type === "text" && typeof (item as { text?: unknown }).text === "string") continue;
    if (
      type === "image" &&
      typeof (item as { data?: unknown }).data === "string" &&
      typeof (item as { mimeType?: unknown }).mimeType === "string"
    )
      continue;
    if (
      type === "resource_link" &&
      typeof (item as { uri?: unknown }).uri === "string" &&
      typeof (item as { name?: unknown }).name === "string"
    )
      continue;
    if (
      type === "audio" &&
      typeof (item as { data?: unknown }).data === "string" &&
      typeof (item as { mimeType?: unknown }).mimeType === "string"
    )
      continue;
    if (type === "resource" && isEmbeddedResource((item as { resource?: unknown }).resource)) continue;
    // Named by place and type, never by an excerpt: a cut excerpt could end inside a secret,
    // where masking no longer finds it.
    const shown = typeof type === "string" && type.length <= 40 ? `type ${JSON.stringify(type)}` : "no known type";
    return `Unsupported content item at content[${i}] (${shown}, or a field its type needs is missing).`;
  }
  return content as Content[];
}
