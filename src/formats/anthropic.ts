import { contentText, isRunning, resultText, type CallResult, type Content } from "../result";
import { requireObjectRoot, type ObjectSchema } from "../schema/walk";
import type { Tool } from "../tool";
import type { Format } from "./format";
import type { ToolCall } from "../tool-call";
import { DecodeError, decodeSafely, isRecord, requireString, visibleContent } from "./shared";

/** The Messages API tool declaration (@anthropic-ai/sdk Tool). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectSchema;
  /** Loaded only when the API's tool search finds it (a search-mode listing: docs/search.md). */
  defer_loading?: true;
}

type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
export type ToolResultContent =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: ImageMediaType; data: string } };

/** One block of the user message that answers tool_use blocks (@anthropic-ai/sdk ToolResultBlockParam). */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: ToolResultContent[];
  is_error?: true;
}

const IMAGE_TYPES: ReadonlySet<string> = new Set<ImageMediaType>([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
]);

function isToolUse(block: unknown): boolean {
  return isRecord(block) && block.type === "tool_use";
}

/** A Message (type "message"), or a message or block list holding tool_use blocks. */
function detect(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(isToolUse);
  if (!isRecord(body)) return false;
  return (
    body.type === "message" ||
    (body.role === "assistant" && Array.isArray(body.content) && body.content.some(isToolUse))
  );
}

function decodeBlocks(body: unknown): ToolCall[] {
  let blocks: unknown[];
  const at = "content";
  if (Array.isArray(body)) blocks = body;
  else if (isRecord(body) && Array.isArray(body.content)) blocks = body.content;
  // A message whose content is a plain string holds no tool calls.
  else if (isRecord(body) && typeof body.content === "string") return [];
  else throw new DecodeError("Expected a Message or an array of its content blocks.");
  const calls: ToolCall[] = [];
  blocks.forEach((block, i) => {
    if (!isRecord(block)) throw new DecodeError(`${at}[${i}] must be a content block object.`);
    // Text, thinking, and server tools (run by Anthropic) are not ours to run.
    if (block.type !== "tool_use") return;
    const id = requireString(block, "id", `${at}[${i}]`);
    calls.push({ id, name: requireString(block, "name", `${at}[${i}]`), arguments: block.input });
  });
  return calls;
}

function toBlock(item: Content): ToolResultContent | undefined {
  if (item.type === "text") return item.text === "" ? undefined : { type: "text", text: item.text };
  if (item.type !== "image") return { type: "text", text: contentText(item) };
  if (IMAGE_TYPES.has(item.mimeType)) {
    return { type: "image", source: { type: "base64", media_type: item.mimeType as ImageMediaType, data: item.data } };
  }
  return { type: "text", text: `[image: ${item.mimeType}, a type Anthropic does not accept]` };
}

function toolResult(result: CallResult): ToolResultBlock {
  if (!result.ok) {
    const block: ToolResultBlock = {
      type: "tool_result",
      tool_use_id: result.callId,
      content: [{ type: "text", text: resultText(result) }],
    };
    // A call running on (detached) has not failed.
    return isRunning(result) ? block : { ...block, is_error: true };
  }
  // The API refuses empty text blocks, so empty text is left out (and an empty result has no content).
  const content = visibleContent(result.output).flatMap((item) => toBlock(item) ?? []);
  return content.length > 0
    ? { type: "tool_result", tool_use_id: result.callId, content }
    : { type: "tool_result", tool_use_id: result.callId };
}

export const anthropic: Format<
  AnthropicTool,
  { message: { role: "user"; content: ToolResultBlock[] } },
  ToolResultBlock
> = {
  name: "anthropic",
  detect,
  decode: (body) => decodeSafely(decodeBlocks, body),
  encode: (results: readonly CallResult[]) => ({ message: { role: "user", content: results.map(toolResult) } }),
  encodeResult: toolResult,
  toolDefinition: (tool: Tool): AnthropicTool => ({
    name: tool.name,
    description: tool.description,
    input_schema: requireObjectRoot(tool.name, tool.inputSchema, "Anthropic"),
  }),
  modelOutput: (calls) => ({
    role: "assistant",
    content: calls.map(({ id, name, args }) => ({ type: "tool_use", id, name, input: args })),
  }),
};
