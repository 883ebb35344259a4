import type { JsonSchema } from "../json";
import { contentText, resultText, type CallResult } from "../result";
import { toOpenAIParameters } from "./openai-schema";
import type { Tool } from "../tool";
import type { Format } from "./format";
import type { ToolCall } from "../tool-call";
import { DecodeError, decodeSafely, isRecord, requireArray, requireString, visibleContent } from "./shared";

/** The Responses API tool declaration (openai FunctionTool). */
export interface ResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
  /** Loaded only when the API's tool search finds it (a search-mode listing: docs/search.md). */
  defer_loading?: true;
}

export type ResponsesOutputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" };

/** What the app sends back as input items (openai ResponseInputItem.FunctionCallOutput). */
export interface FunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesOutputPart[];
}

function isFunctionCall(item: unknown): item is Record<string, unknown> {
  return isRecord(item) && item.type === "function_call";
}

/** A Response (object "response") or its output array holding at least one function_call item. */
function detect(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(isFunctionCall);
  return (
    isRecord(body) && (body.object === "response" || (Array.isArray(body.output) && body.output.some(isFunctionCall)))
  );
}

function decodeItems(body: unknown): ToolCall[] {
  const items = Array.isArray(body)
    ? body
    : isRecord(body) && "output" in body
      ? requireArray(body.output, "output")
      : undefined;
  if (!items) throw new DecodeError("Expected a Response, its output array, or an array of items.");
  const at = Array.isArray(body) ? "items" : "output";
  const calls: ToolCall[] = [];
  items.forEach((item, i) => {
    if (!isRecord(item)) throw new DecodeError(`${at}[${i}] must be an item object.`);
    // Messages, reasoning and built-in tool calls are not ours to run.
    if (item.type !== "function_call") return;
    // call_id (not the item id) is what function_call_output must name.
    const id = requireString(item, "call_id", `${at}[${i}]`);
    calls.push({ id, name: requireString(item, "name", `${at}[${i}]`), arguments: item.arguments });
  });
  return calls;
}

/** Text normally; with images, the list form so the model sees them (Responses accepts input_image). */
function outputOf(result: CallResult): FunctionCallOutputItem["output"] {
  if (!result.ok || !result.output.content.some((item) => item.type === "image")) return resultText(result);
  return visibleContent(result.output).map((item): ResponsesOutputPart => {
    if (item.type === "image")
      return { type: "input_image", image_url: `data:${item.mimeType};base64,${item.data}`, detail: "auto" };
    return { type: "input_text", text: contentText(item) };
  });
}

function outputItem(result: CallResult): FunctionCallOutputItem {
  return { type: "function_call_output", call_id: result.callId, output: outputOf(result) };
}

export const openaiResponses: Format<ResponsesTool, { items: FunctionCallOutputItem[] }, FunctionCallOutputItem> = {
  name: "openai-responses",
  detect,
  decode: (body) => decodeSafely(decodeItems, body),
  encode: (results: readonly CallResult[]) => ({ items: results.map(outputItem) }),
  encodeResult: outputItem,
  toolDefinition(tool: Tool): ResponsesTool {
    const { parameters, strict } = toOpenAIParameters(tool);
    return { type: "function", name: tool.name, description: tool.description, parameters, strict };
  },
  modelOutput: (calls) => ({
    output: calls.map(({ id, name, args }) => ({
      type: "function_call",
      call_id: id,
      name,
      arguments: JSON.stringify(args),
    })),
  }),
};
