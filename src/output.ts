import type { JsonValue } from "./json";
import type { CallOutput, Content } from "./result";
import { isRichResult } from "./tool";

/**
 * Whatever run() returned → the one result shape, or why it cannot be one. Strings become text; JSON
 * values become structured output plus their JSON text; rich results pass through. Values JSON cannot
 * carry are an error (the string). No wrapper object: this runs on every call.
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
      const text = safeStringify(returned.structured);
      if (text === undefined) return "The tool's structured output is not JSON.";
      output.structured = returned.structured;
    }
    return output;
  }
  const text = safeStringify(returned);
  if (text === undefined) return `The tool returned a value that is not JSON (${typeof returned}).`;
  return { content: [{ type: "text", text }], structured: returned as JsonValue };
}

/** What an output schema checks: the structured part of a rich result, else the value itself. */
export function outputValue(returned: unknown): unknown {
  return isRichResult(returned) ? returned.structured : returned;
}

function safeStringify(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

function isEmbeddedResource(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { uri, text, blob } = value as { uri?: unknown; text?: unknown; blob?: unknown };
  return typeof uri === "string" && (typeof text === "string" || typeof blob === "string");
}

function checkContent(content: unknown): Content[] | string {
  if (!Array.isArray(content)) return "Rich content must be an array.";
  for (const item of content) {
    const type = (item as { type?: unknown } | null)?.type;
    if (type === "text" && typeof (item as { text?: unknown }).text === "string") continue;
    if (type === "image" && typeof (item as { data?: unknown }).data === "string" && typeof (item as { mimeType?: unknown }).mimeType === "string") continue;
    if (type === "resource_link" && typeof (item as { uri?: unknown }).uri === "string" && typeof (item as { name?: unknown }).name === "string") continue;
    if (type === "audio" && typeof (item as { data?: unknown }).data === "string" && typeof (item as { mimeType?: unknown }).mimeType === "string") continue;
    if (type === "resource" && isEmbeddedResource((item as { resource?: unknown }).resource)) continue;
    return `Unsupported content item: ${JSON.stringify(item)?.slice(0, 80)}`;
  }
  return content as Content[];
}
