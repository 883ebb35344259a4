import { describe, expect, it } from "vitest";
import * as v from "valibot";
import type {
  ChatCompletion,
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import { openai } from "../../../src/formats/openai";
import { defineTool } from "../../../src/tool";
import { errorResult, imageResult, jsonResult, textResult } from "./results";

const toolCalls: ChatCompletionMessageToolCall[] = [
  { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
  { id: "call_2", type: "function", function: { name: "add", arguments: '{"a":1,' } },
];
const message: ChatCompletionMessage = { role: "assistant", content: null, refusal: null, tool_calls: toolCalls };
const completion: ChatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4.1",
  choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null, message }],
};
const expected = [
  { id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
  { id: "call_2", name: "add", arguments: '{"a":1,' },
];

describe("openai (Chat Completions)", () => {
  it.each([
    ["a whole completion", completion],
    ["an assistant message", message],
    ["a tool_calls array", toolCalls],
  ])("decodes %s in order, arguments left as raw JSON text", (_label, body) => {
    expect(openai.detect(body)).toBe(true);
    expect(openai.decode(body)).toEqual({ ok: true, calls: expected });
  });

  it("decodes a message without tool calls, or a completion without choices, as no calls", () => {
    expect(openai.decode({ ...message, tool_calls: undefined, content: "Hi" })).toEqual({ ok: true, calls: [] });
    expect(openai.decode({ ...completion, choices: [] })).toEqual({ ok: true, calls: [] });
  });

  it.each([
    [[{ type: "function", function: { name: "x", arguments: "{}" } }], "tool_calls[0].id is missing."],
    [
      [{ id: 7, type: "function", function: { name: "x", arguments: "{}" } }],
      "tool_calls[0].id is a number, not a string.",
    ],
    [
      {
        ...message,
        tool_calls: [toolCalls[0], { id: "c", type: "function", function: { name: "", arguments: "{}" } }],
      },
      "message.tool_calls[1].function.name is empty.",
    ],
    [[{ id: "c", type: "custom", custom: { name: "x", input: "free text" } }], /custom tool call/],
    [{ choices: [{ message: "nope" }] }, "choices[0].message must be an object, got a string."],
    [{ hello: 1 }, /Expected a ChatCompletion, an assistant message, or a tool_calls array/],
  ])("rejects bad shapes with a message saying where (%#)", (body, message) => {
    const decoded = openai.decode(body);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.message).toMatch(message);
  });

  it("encodes tool messages in order, errors and images as readable text", () => {
    const { messages } = openai.encode([
      textResult("call_1"),
      errorResult("call_2"),
      jsonResult("call_3"),
      imageResult("call_4"),
    ]);
    const typed: ChatCompletionToolMessageParam[] = messages;
    expect(typed).toEqual([
      { role: "tool", tool_call_id: "call_1", content: "Sunny, 21°C" },
      {
        role: "tool",
        tool_call_id: "call_2",
        content: 'Error [invalid_arguments]: b: Invalid type: Expected number but received "2"',
      },
      { role: "tool", tool_call_id: "call_3", content: '{"sum":3}' },
      {
        role: "tool",
        tool_call_id: "call_4",
        content: "Here is the chart\n[image: image/png]\n[resource: chart.png] https://x.test/c.png",
      },
    ]);
  });

  it("declares a function tool with the strict parameters", () => {
    const tool = defineTool({
      name: "add",
      description: "Add two numbers",
      input: v.object({ a: v.number(), b: v.optional(v.number()) }),
      run: ({ a, b = 0 }) => a + b,
    });
    const definition: ChatCompletionFunctionTool = openai.toolDefinition(tool);
    expect(definition).toEqual({
      type: "function",
      function: {
        name: "add",
        description: "Add two numbers",
        strict: true,
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: ["number", "null"] } },
          required: ["a", "b"],
          additionalProperties: false,
        },
      },
    });
  });
});
