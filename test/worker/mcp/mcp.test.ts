import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { json, request } from "../helpers/requests";
import { connect, FIXTURE_VARS, type McpTarget } from "../helpers/mcp";

const open: Client[] = [];
async function client(target: McpTarget = {}) {
  const connected = await connect(target);
  open.push(connected.client);
  return connected;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const rpcError = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable("expected a JSON-RPC error"),
    (error: unknown) => error as McpError,
  );

describe("MCP: initialize and tools/list", () => {
  it("negotiates 2025-11-25 and offers tools (no listChanged: it is never sent) and logging", async () => {
    const { client: c, transport } = await client();
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(transport.sessionId).toMatch(/^[0-9a-z]+\.[\w-]{22}\.[\w-]{22}$/);
    expect(c.getServerCapabilities()).toEqual({ tools: { listChanged: false }, logging: {} });
    expect(c.getServerVersion()).toMatchObject({ name: "toolgate" });
  });

  it("speaks 2025-06-18 when the client asks for it, and calls tools under it", async () => {
    const { client: c, transport } = await client({ version: "2025-06-18" });
    expect(transport.protocolVersion).toBe("2025-06-18");
    const result = await c.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it("lists every tool with its schemas and annotations derived from policy", async () => {
    const { client: c } = await client();
    const { tools, nextCursor } = await c.listTools();
    expect(nextCursor).toBeUndefined();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(["add", "echo", "sleep", "send_message", "fail"]));
    const add = byName.get("add")!;
    expect(add.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(add.outputSchema).toMatchObject({ type: "object", properties: { sum: { type: "number" } } });
    expect(add.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.get("send_message")!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(byName.get("echo")!.outputSchema).toBeUndefined();
  });

  it("pages tools/list with an opaque cursor and refuses a forged one", async () => {
    const { client: c } = await client({ vars: { ...FIXTURE_VARS, TOOLGATE_MCP_PAGE_SIZE: "4" } });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.listTools(cursor === undefined ? {} : { cursor });
      expect(page.tools.length).toBeLessThanOrEqual(4);
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(Math.ceil(names.length / 4));
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["add", "test_tool_with_progress", "json_schema_2020_12_tool"]));
    const error = await rpcError(c.listTools({ cursor: "not-a-cursor" }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
  });

  it("keeps a JSON Schema tool's $schema, $defs and additionalProperties", async () => {
    const { client: c } = await client({ vars: FIXTURE_VARS });
    const tool = (await c.listTools()).tools.find((t) => t.name === "json_schema_2020_12_tool")!;
    expect(tool.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { address: { type: "object" } },
      additionalProperties: false,
    });
  });
});

describe("MCP: tools/call through the pipeline", () => {
  it("answers structuredContent and the same JSON as text", async () => {
    const { client: c } = await client();
    const result = await c.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result).toEqual({ content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } });
    expect(await c.callTool({ name: "echo", arguments: { text: "hi" } })).toEqual({
      content: [{ type: "text", text: "hi" }],
    });
  });

  it("answers invalid arguments as a readable isError result (the model can fix them)", async () => {
    const { client: c } = await client();
    const result = await c.callTool({ name: "add", arguments: { a: "two", b: 3 } });
    expect(result.isError).toBe(true);
    expect((result.content as any)[0].text).toMatch(
      /^Error \[invalid_arguments\]: Invalid arguments for tool "add": .*\ba\b/,
    );
  });

  it("answers -32602 for an unknown tool and for params that are not an object of arguments", async () => {
    const { client: c } = await client();
    const unknown = await rpcError(c.callTool({ name: "no_such_tool", arguments: {} }));
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('Unknown tool "no_such_tool"');
    const malformed = await rpcError(
      c.request({ method: "tools/call", params: { name: "add", arguments: "a=1" } as never }, CallToolResultSchema),
    );
    expect(malformed.code).toBe(ErrorCode.InvalidParams);
  });

  it("answers a tool's failure as isError with its message", async () => {
    const { client: c } = await client();
    const result = await c.callTool({ name: "fail", arguments: { message: "the printer is on fire" } });
    expect(result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Error [tool_error]: the printer is on fire" }],
    });
  });

  it("parks a call needing approval and says so with the pending call id; the ledger holds it", async () => {
    const { client: c } = await client();
    const result = await c.callTool({ name: "send_message", arguments: { to: "bob", text: "hi" } });
    expect(result.isError).toBe(true);
    const text = (result.content as any)[0].text as string;
    const callId = /pending as (mcp-[\w-]+);/.exec(text)?.[1];
    expect(text).toContain("needs approval");
    expect(callId).toBeDefined();
    const record = await request(`/v1/calls/${callId}`);
    expect(record.status).toBe(200);
    expect(await json(record)).toMatchObject({ record: { tool: "send_message", status: "pending" } });
  });

  it("carries images, audio and embedded resources as MCP content", async () => {
    const { client: c } = await client({ vars: FIXTURE_VARS });
    const mixed = await c.callTool({ name: "test_multiple_content_types", arguments: {} });
    expect((mixed.content as any[]).map((item) => item.type)).toEqual(["text", "image", "resource"]);
    const audio = await c.callTool({ name: "test_audio_content", arguments: {} });
    expect(audio.content).toEqual([{ type: "audio", data: expect.stringMatching(/^UklGR/), mimeType: "audio/wav" }]);
  });
});
