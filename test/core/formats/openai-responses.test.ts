import { describe, expect, it } from "vitest";
import * as v from "valibot";
import type {
  FunctionTool,
  Response,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import { openaiResponses } from "../../../src/formats/openai-responses";
import { defineTool } from "../../../src/tool";
import { PNG, errorResult, imageResult, jsonResult } from "./results";

const call1: ResponseFunctionToolCall = {
  type: "function_call",
  id: "fc_1",
  call_id: "call_1",
  name: "add",
  arguments: '{"a":1,"b":2}',
  status: "completed",
};
const call2: ResponseFunctionToolCall = {
  type: "function_call",
  call_id: "call_2",
  name: "get_weather",
  arguments: '{"city":"Oslo"}',
};
const output: ResponseOutputItem[] = [
  { type: "reasoning", id: "rs_1", summary: [] },
  call1,
  {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Let me check.", annotations: [] }],
  },
  call2,
];
// Only the fields the decoder reads are given; the cast keeps `output` checked against the SDK type.
const response = {
  id: "resp_1",
  object: "response",
  created_at: 1_700_000_000,
  model: "gpt-4.1",
  status: "completed",
  output,
} as Response;
const expected = [
  { id: "call_1", name: "add", arguments: '{"a":1,"b":2}' },
  { id: "call_2", name: "get_weather", arguments: '{"city":"Oslo"}' },
];

describe("openai-responses", () => {
  it.each([
    ["a Response", response],
    ["response.output", output],
    ["an object with output", { output }],
  ])("decodes %s, using call_id and ignoring non function_call items", (_label, body) => {
    expect(openaiResponses.detect(body)).toBe(true);
    expect(openaiResponses.decode(body)).toEqual({ ok: true, calls: expected });
  });

  it("rejects a function_call without call_id or name, and non-object items", () => {
    const bad = (body: unknown) => {
      const decoded = openaiResponses.decode(body);
      return decoded.ok ? "" : decoded.message;
    };
    expect(bad([{ type: "function_call", id: "fc_1", name: "add", arguments: "{}" }])).toBe(
      "items[0].call_id is missing.",
    );
    expect(bad({ output: [call1, { type: "function_call", call_id: "c", name: null, arguments: "{}" }] })).toBe(
      "output[1].name is null, not a string.",
    );
    expect(bad({ output: [3] })).toBe("output[0] must be an item object.");
    expect(bad({ output: "x" })).toBe("output must be an array, got a string.");
  });

  it("encodes function_call_output items; images use the list form", () => {
    const { items } = openaiResponses.encode([jsonResult("call_1"), errorResult("call_2"), imageResult("call_3")]);
    const typed: ResponseInputItem[] = items;
    expect(typed).toEqual([
      { type: "function_call_output", call_id: "call_1", output: '{"sum":3}' },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: 'Error [invalid_arguments]: b: Invalid type: Expected number but received "2"',
      },
      {
        type: "function_call_output",
        call_id: "call_3",
        output: [
          { type: "input_text", text: "Here is the chart" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
          { type: "input_text", text: "[resource: chart.png] https://x.test/c.png" },
        ],
      },
    ]);
  });

  it("declares a flat function tool, non-strict when the schema has an open record", () => {
    const tool = defineTool({
      name: "tag",
      description: "Tag things",
      input: v.object({ tags: v.record(v.string(), v.string()) }),
      run: () => "ok",
    });
    const definition: FunctionTool = openaiResponses.toolDefinition(tool);
    expect(definition).toEqual({
      type: "function",
      name: "tag",
      description: "Tag things",
      parameters: tool.inputSchema,
      strict: false,
    });
  });
});
