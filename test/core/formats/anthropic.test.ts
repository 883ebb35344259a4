import { describe, expect, it } from "vitest";
import * as v from "valibot";
import type {
  ContentBlock,
  Message,
  MessageParam,
  Tool as AnthropicSdkTool,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { anthropic } from "../../../src/formats/anthropic";
import { defineTool } from "../../../src/tool";
import { PNG, errorResult, imageResult, jsonResult, succeeded } from "./results";

const use1: ToolUseBlock = {
  type: "tool_use",
  id: "toolu_1",
  name: "add",
  input: { a: 1, b: 2 },
  caller: { type: "direct" },
};
const use2: ToolUseBlock = {
  type: "tool_use",
  id: "toolu_2",
  name: "get_weather",
  input: { city: "Oslo" },
  caller: { type: "direct" },
};
const content: ContentBlock[] = [
  { type: "thinking", thinking: "Two tools are needed.", signature: "sig" },
  { type: "text", text: "Let me check.", citations: null },
  use1,
  use2,
];
// Only the fields the decoder reads are given; the cast keeps `content` checked against the SDK type.
const message = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content,
  stop_reason: "tool_use",
  stop_sequence: null,
} as Message;
const expected = [
  { id: "toolu_1", name: "add", arguments: { a: 1, b: 2 } },
  { id: "toolu_2", name: "get_weather", arguments: { city: "Oslo" } },
];

describe("anthropic", () => {
  it.each([
    ["a Message", message],
    ["its content blocks", content],
    ["an assistant MessageParam", { role: "assistant", content } satisfies MessageParam],
  ])("decodes %s in order, ignoring text and thinking", (_label, body) => {
    expect(anthropic.detect(body)).toBe(true);
    expect(anthropic.decode(body)).toEqual({ ok: true, calls: expected });
  });

  it("decodes a message with plain string content as no calls", () => {
    expect(anthropic.decode({ role: "assistant", content: "Hello" })).toEqual({ ok: true, calls: [] });
  });

  it("rejects tool_use blocks without a usable id or name", () => {
    const message = (body: unknown) => {
      const decoded = anthropic.decode(body);
      return decoded.ok ? "" : decoded.message;
    };
    expect(message([{ type: "tool_use", name: "add", input: {} }])).toBe("content[0].id is missing.");
    expect(message({ content: [use1, { type: "tool_use", id: "t", name: 5, input: {} }] })).toBe(
      "content[1].name is a number, not a string.",
    );
    expect(message({ content: [null] })).toBe("content[0] must be a content block object.");
    expect(message(42)).toBe("Expected a Message or an array of its content blocks.");
  });

  it("encodes one user message of tool_result blocks: text, images, is_error on failures", () => {
    const plain = succeeded("toolu_4", "noop", { content: [] });
    const bmp = succeeded("toolu_5", "pic", { content: [{ type: "image", data: PNG, mimeType: "image/bmp" }] });
    const { message } = anthropic.encode([
      jsonResult("toolu_1"),
      errorResult("toolu_2"),
      imageResult("toolu_3"),
      plain,
      bmp,
    ]);
    const typed: MessageParam = message;
    expect(typed).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: '{"sum":3}' }] },
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: [
            { type: "text", text: 'Error [invalid_arguments]: b: Invalid type: Expected number but received "2"' },
          ],
          is_error: true,
        },
        {
          type: "tool_result",
          tool_use_id: "toolu_3",
          content: [
            { type: "text", text: "Here is the chart" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            { type: "text", text: "[resource: chart.png] https://x.test/c.png" },
          ],
        },
        { type: "tool_result", tool_use_id: "toolu_4" },
        {
          type: "tool_result",
          tool_use_id: "toolu_5",
          content: [{ type: "text", text: "[image: image/bmp, a type Anthropic does not accept]" }],
        },
      ],
    });
  });

  it("declares { name, description, input_schema } with the JSON Schema as is", () => {
    const tool = defineTool({
      name: "add",
      description: "Add",
      input: v.object({ a: v.number(), b: v.optional(v.number()) }),
      run: ({ a }) => a,
    });
    const definition: AnthropicSdkTool = anthropic.toolDefinition(tool);
    expect(definition).toEqual({ name: "add", description: "Add", input_schema: tool.inputSchema });
    expect(definition.input_schema.required).toEqual(["a"]);
  });
});
