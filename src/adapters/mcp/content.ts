import { toolError } from "../../errors";
import { isPlainObject, type JsonValue } from "../../json";
import type { Content, ContentAnnotations } from "../../result";
import { richResult, type RichResult } from "../../tool";

/** A block's annotations, only the well-formed fields (audience roles, priority 0–1, lastModified). */
function annotationsOf(raw: unknown): ContentAnnotations | undefined {
  if (!isPlainObject(raw)) return undefined;
  const annotations: ContentAnnotations = {};
  if (Array.isArray(raw.audience))
    annotations.audience = raw.audience.filter(
      (role): role is "user" | "assistant" => role === "user" || role === "assistant",
    );
  if (typeof raw.priority === "number" && raw.priority >= 0 && raw.priority <= 1) annotations.priority = raw.priority;
  if (typeof raw.lastModified === "string") annotations.lastModified = raw.lastModified;
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/** One MCP content block as toolgate's content, with its annotations; a malformed block is dropped. */
function toContent(block: unknown): Content | undefined {
  const content = blockOf(block);
  const annotations = content && isPlainObject(block) ? annotationsOf(block.annotations) : undefined;
  return annotations ? { ...content!, annotations } : content;
}

function blockOf(block: unknown): Content | undefined {
  if (!isPlainObject(block)) return undefined;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? { type: "text", text: block.text } : undefined;
    case "image":
      return typeof block.data === "string" && typeof block.mimeType === "string"
        ? { type: "image", data: block.data, mimeType: block.mimeType }
        : undefined;
    case "resource_link": {
      if (typeof block.uri !== "string") return undefined;
      const link: Content = {
        type: "resource_link",
        uri: block.uri,
        name: typeof block.name === "string" ? block.name : block.uri,
      };
      if (typeof block.mimeType === "string") link.mimeType = block.mimeType;
      if (typeof block.description === "string") link.description = block.description;
      return link;
    }
    case "resource": {
      // Kept whole: the MCP surface passes it on as is; chat formats read it as text (contentText).
      const resource = isPlainObject(block.resource) ? block.resource : {};
      if (typeof resource.uri !== "string") return undefined;
      const mimeType = typeof resource.mimeType === "string" ? { mimeType: resource.mimeType } : {};
      if (typeof resource.text === "string")
        return { type: "resource", resource: { uri: resource.uri, ...mimeType, text: resource.text } };
      if (typeof resource.blob === "string")
        return { type: "resource", resource: { uri: resource.uri, ...mimeType, blob: resource.blob } };
      return undefined;
    }
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string"
        ? { type: "audio", data: block.data, mimeType: block.mimeType }
        : undefined;
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
  const content = (Array.isArray(value.content) ? value.content : [])
    .map(toContent)
    .filter((c): c is Content => c !== undefined);
  if (value.isError === true) {
    const text = content
      .map((c) => (c.type === "text" ? c.text : c.type === "resource" && "text" in c.resource ? c.resource.text : ""))
      .join("\n")
      .trim();
    throw toolError("tool_error", text || `${label} reported an error without a message`, { retryable: false });
  }
  const structured = value.structuredContent as JsonValue | undefined;
  if (content.length === 0 && structured !== undefined)
    content.push({ type: "text", text: JSON.stringify(structured) });
  return richResult(content, structured);
}
