import type { JsonSchema } from "../json";
import { resultText, type CallResult } from "../result";
import { toOpenAIParameters } from "./openai-schema";
import type { Tool } from "../tool";
import type { Format } from "./format";
import type { ToolCall } from "../tool-call";
import { DecodeError, decodeSafely, isRecord, requireArray, requireRecord, requireString } from "./shared";

/** The Chat Completions tool declaration (openai ChatCompletionFunctionTool). */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict: boolean };
}

/** What the app appends to `messages` (openai ChatCompletionToolMessageParam). */
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** A whole ChatCompletion: it has choices, each with a message. */
function isCompletion(body: unknown): body is Record<string, unknown> {
  return isRecord(body) && (body.object === "chat.completion" || Array.isArray(body.choices));
}

/** An assistant message: role assistant, no `type` (Anthropic's messages have one), OpenAI-shaped content. */
function isAssistantMessage(body: unknown): body is Record<string, unknown> {
  if (!isRecord(body) || body.role !== "assistant" || "type" in body) return false;
  return Array.isArray(body.tool_calls) || typeof body.content === "string" || body.content === null;
}

/** A tool_calls array: items carry `function: { name, arguments }`. */
function isToolCallArray(body: unknown): body is unknown[] {
  return Array.isArray(body) && body.length > 0 && body.every((item) => isRecord(item) && isRecord(item.function));
}

function decodeCalls(body: unknown): ToolCall[] {
  if (Array.isArray(body)) return decodeToolCalls(body, "tool_calls");
  if (isCompletion(body)) {
    const choices = requireArray(body.choices, "choices");
    if (choices.length === 0) return [];
    // Several choices are alternative answers; the app continues the first one.
    const choice = requireRecord(choices[0], "choices[0]");
    return decodeMessage(requireRecord(choice.message, "choices[0].message"), "choices[0].message");
  }
  if (isRecord(body) && (body.role === "assistant" || "tool_calls" in body)) return decodeMessage(body, "message");
  throw new DecodeError("Expected a ChatCompletion, an assistant message, or a tool_calls array.");
}

function decodeMessage(message: Record<string, unknown>, at: string): ToolCall[] {
  const calls = message.tool_calls;
  if (calls === undefined || calls === null) return [];
  return decodeToolCalls(requireArray(calls, `${at}.tool_calls`), `${at}.tool_calls`);
}

function decodeToolCalls(items: unknown[], at: string): ToolCall[] {
  const calls = new Array<ToolCall>(items.length);
  for (let i = 0; i < items.length; i++) calls[i] = wellFormedCall(items[i]) ?? decodeToolCall(items[i], `${at}[${i}]`);
  return calls;
}

/**
 * The common case, checked without building the error paths: those strings cost more than the
 * checks when a message carries many calls. undefined sends the item through decodeToolCall.
 */
function wellFormedCall(item: unknown): ToolCall | undefined {
  if (!isRecord(item) || (item.type !== undefined && item.type !== "function")) return undefined;
  const id = item.id;
  const fn = item.function;
  if (typeof id !== "string" || id === "" || !isRecord(fn)) return undefined;
  const name = fn.name;
  return typeof name === "string" && name !== "" ? { id, name, arguments: fn.arguments } : undefined;
}

/** The checking path: names the first bad field. */
function decodeToolCall(item: unknown, at: string): ToolCall {
  const call = requireRecord(item, at);
  if (call.type === "custom") {
    throw new DecodeError(
      `${at} is a custom tool call (free text); toolgate tools are function tools with JSON arguments.`,
    );
  }
  if (call.type !== undefined && call.type !== "function")
    throw new DecodeError(`${at}.type must be "function", got ${JSON.stringify(call.type)}.`);
  const id = requireString(call, "id", at);
  const fn = requireRecord(call.function, `${at}.function`);
  // Arguments stay raw JSON text: the pipeline parses them and answers invalid_json per call.
  return { id, name: requireString(fn, "name", `${at}.function`), arguments: fn.arguments };
}

/** Chat Completions tool messages carry text only: errors and images become readable text. */
function toolMessage(result: CallResult): OpenAIToolMessage {
  return { role: "tool", tool_call_id: result.callId, content: resultText(result) };
}

export const openai: Format<OpenAIChatTool, { messages: OpenAIToolMessage[] }, OpenAIToolMessage> = {
  name: "openai",
  detect: (body) => isCompletion(body) || isAssistantMessage(body) || isToolCallArray(body),
  decode: (body) => decodeSafely(decodeCalls, body),
  encode: (results: readonly CallResult[]) => ({ messages: results.map(toolMessage) }),
  encodeResult: toolMessage,
  toolDefinition(tool: Tool): OpenAIChatTool {
    const { parameters, strict } = toOpenAIParameters(tool);
    return { type: "function", function: { name: tool.name, description: tool.description, parameters, strict } };
  },
  modelOutput: (calls) => ({
    role: "assistant",
    content: null,
    tool_calls: calls.map(({ id, name, args }) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    })),
  }),
};
