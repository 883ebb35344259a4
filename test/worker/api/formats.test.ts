import { describe, expect, it } from "vitest";
import { CATALOG } from "../../../worker/tenant/catalog";
import { json, request } from "../helpers/requests";

const uid = () => crypto.randomUUID().slice(0, 8);
// The demo offers "tag:demo": the tools of tools/ with that tag, in file-name order (the catalogue's),
// whatever tools/ holds (npm run tool:add tags a new tool "demo").
const DEMO_TOOLS = [...CATALOG.values()].filter((tool) => tool.tags?.includes("demo")).map((tool) => tool.name);

/** For each format: the model's output holding add(1, 2) and a call to an unknown tool, and how to read the answer. */
const cases = {
  openai: (id: string) => ({
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: `a-${id}`, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } },
              { id: `b-${id}`, type: "function", function: { name: "nope", arguments: "{}" } },
            ],
          },
        },
      ],
    },
    expected: {
      messages: [
        { role: "tool", tool_call_id: `a-${id}`, content: '{"sum":3}' },
        {
          role: "tool",
          tool_call_id: `b-${id}`,
          content: expect.stringMatching(/^Error \[unknown_tool\]: Unknown tool "nope"/),
        },
      ],
    },
  }),
  "openai-responses": (id: string) => ({
    body: {
      object: "response",
      output: [
        { type: "function_call", call_id: `a-${id}`, name: "add", arguments: '{"a":1,"b":2}' },
        { type: "function_call", call_id: `b-${id}`, name: "nope", arguments: "{}" },
      ],
    },
    expected: {
      items: [
        { type: "function_call_output", call_id: `a-${id}`, output: '{"sum":3}' },
        { type: "function_call_output", call_id: `b-${id}`, output: expect.stringMatching(/unknown_tool/) },
      ],
    },
  }),
  anthropic: (id: string) => ({
    body: {
      type: "message",
      role: "assistant",
      content: [
        { type: "text", text: "Let me add." },
        { type: "tool_use", id: `a-${id}`, name: "add", input: { a: 1, b: 2 } },
        { type: "tool_use", id: `b-${id}`, name: "nope", input: {} },
      ],
    },
    expected: {
      message: {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: `a-${id}`, content: [{ type: "text", text: '{"sum":3}' }] },
          { type: "tool_result", tool_use_id: `b-${id}`, content: expect.anything(), is_error: true },
        ],
      },
    },
  }),
  gemini: (id: string) => ({
    body: {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { functionCall: { id: `a-${id}`, name: "add", args: { a: 1, b: 2 } } },
              { functionCall: { id: `b-${id}`, name: "nope", args: {} } },
            ],
          },
        },
      ],
    },
    expected: {
      content: {
        role: "user",
        parts: [
          { functionResponse: { id: `a-${id}`, name: "add", response: { output: { sum: 3 } } } },
          { functionResponse: { id: `b-${id}`, name: "nope", response: { error: expect.anything() } } },
        ],
      },
    },
  }),
  mcp: () => ({
    body: [
      { name: "add", arguments: { a: 1, b: 2 } },
      { name: "nope", arguments: {} },
    ],
    expected: {
      results: [
        { content: [{ type: "text", text: '{"sum":3}' }], structuredContent: { sum: 3 } },
        { content: [{ type: "text", text: expect.stringMatching(/unknown_tool|Unknown tool/) }], isError: true },
      ],
    },
  }),
} as const;

describe.each(Object.keys(cases) as (keyof typeof cases)[])("format %s over HTTP", (format) => {
  it("lists the demo tools in the format's shape", async () => {
    const res = await request(`/v1/tools/${format}`);
    expect(res.status).toBe(200);
    const { tools } = await json(res);
    const names = tools.map((tool: any) => tool.name ?? tool.function?.name);
    expect(names).toEqual(DEMO_TOOLS);
  });

  for (const path of [`/v1/calls/${format}`, "/v1/calls"]) {
    it(`runs calls via ${path} and answers in the same format, plus the records`, async () => {
      const { body, expected } = cases[format](uid());
      const res = await request(path, { body });
      expect(res.status).toBe(200);
      const answer = await json(res);
      expect(answer).toEqual({ ...expected, calls: expect.any(Array) });
      expect(answer.calls.map((r: any) => [r.tool, r.status])).toEqual([
        ["add", "succeeded"],
        ["nope", "rejected"],
      ]);
    });
  }
});

describe("tool listings", () => {
  it("declare the exact shapes each API expects", async () => {
    // add's entry, wherever tools/ puts it in the listing.
    const add = async (format: string) =>
      (await json(await request(`/v1/tools/${format}`))).tools.find(
        (tool: any) => (tool.name ?? tool.function?.name) === "add",
      );
    expect(await add("openai")).toMatchObject({
      type: "function",
      function: { name: "add", description: "Add two numbers.", parameters: { type: "object" } },
    });
    expect(await add("anthropic")).toMatchObject({
      name: "add",
      input_schema: { type: "object", required: ["a", "b"] },
    });
    expect(await add("gemini")).toMatchObject({ name: "add", parameters: { type: "OBJECT" } });
    expect(await add("mcp")).toMatchObject({
      name: "add",
      inputSchema: { type: "object" },
      outputSchema: { type: "object" },
    });
  });
});
