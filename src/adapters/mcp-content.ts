import { toolError } from "../errors";
import { isPlainObject, type JsonValue } from "../json";
import type { Content } from "../result";
import { richResult, type RichResult } from "../tool";

/** One MCP content block as toolgate's content; a malformed block is dropped. */
function toContent(block: unknown): Content | undefined {
  if (!isPlainObject(block)) return undefined;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? { type: "text", text: block.text } : undefined;
    case "image":
      return typeof block.data === "string" && typeof block.mimeType === "string" ? { type: "image", data: block.data, mimeType: block.mimeType } : undefined;
    case "resource_link": {
      if (typeof block.uri !== "string") return undefined;
      const link: Content = { type: "resource_link", uri: block.uri, name: typeof block.name === "string" ? block.name : block.uri };
      if (typeof block.mimeType === "string") link.mimeType = block.mimeType;
      if (typeof block.description === "string") link.description = block.description;
      return link;
    }
    case "resource": {
      // Kept whole: the MCP surface passes it on as is; chat formats read it as text (contentText).
      const resource = isPlainObject(block.resource) ? block.resource : {};
      if (typeof resource.uri !== "string") return undefined;
      const mimeType = typeof resource.mimeType === "string" ? { mimeType: resource.mimeType } : {};
      if (typeof resource.text === "string") return { type: "resource", resource: { uri: resource.uri, ...mimeType, text: resource.text } };
      if (typeof resource.blob === "string") return { type: "resource", resource: { uri: resource.uri, ...mimeType, blob: resource.blob } };
      return undefined;
    }
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string" ? { type: "audio", data: block.data, mimeType: block.mimeType } : undefined;
    default:
      return undefined;
  }
}

/**
 * A tools/call result as a tool result. `isError: true` is the tool reporting a failure (a
 * tool_error the model can act on), unlike JSON-RPC errors, which the client maps to upstream_error.
 */
export function fromCallResult(result: unknown, label: string): RichResult {
  const value = isPlainObject(result) ? result : {};
  const content = (Array.isArray(value.content) ? value.content : []).map(toContent).filter((c): c is Content => c !== undefined);
  if (value.isError === true) {
    const text = content.map((c) => (c.type === "text" ? c.text : c.type === "resource" && "text" in c.resource ? c.resource.text : "")).join("\n").trim();
    throw toolError("tool_error", text || `${label} reported an error without a message`, { retryable: false });
  }
  const structured = value.structuredContent as JsonValue | undefined;
  if (content.length === 0 && structured !== undefined) content.push({ type: "text", text: JSON.stringify(structured) });
  return richResult(content, structured);
}
