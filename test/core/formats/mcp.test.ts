import { describe, expect, it } from "vitest";
import * as v from "valibot";
import {
  CallToolResultSchema,
  ToolSchema,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCRequest,
  type Tool as McpSdkTool,
} from "@modelcontextprotocol/sdk/types.js";
import { mcp, toCallToolResult } from "../../../src/formats/mcp";
import { assembleTool, defineTool } from "../../../src/tool";
import { PNG, errorResult, imageResult, jsonResult, succeeded } from "./results";

const params: CallToolRequest["params"] = { name: "add", arguments: { a: 1, b: 2 } };
const request: CallToolRequest = { method: "tools/call", params: { name: "get_weather", arguments: { city: "Oslo" } } };
const rpc: JSONRPCRequest = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "now" } };

describe("mcp", () => {
  it("decodes params, a request, a JSON-RPC request, or a list of them, generating fresh ids", () => {
    for (const body of [params, request, [params, request, rpc]]) expect(mcp.detect(body)).toBe(true);
    const decoded = mcp.decode([params, request, rpc]);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
      { name: "add", args: { a: 1, b: 2 } },
      { name: "get_weather", args: { city: "Oslo" } },
      { name: "now", args: undefined },
    ]);
    const ids = decoded.calls.map((call) => call.id);
    for (const id of ids) expect(id).toMatch(/^mcp-[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(3);
    // JSON-RPC ids are per-session counters: the same request twice must not share a call id.
    const again = mcp.decode(rpc);
    expect(again.ok && again.calls[0]!.id).not.toBe(ids[2]);
  });

  it("rejects other methods and calls without a name", () => {
    const message = (body: unknown) => {
      const decoded = mcp.decode(body);
      return decoded.ok ? "" : decoded.message;
    };
    expect(message({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBe(
      'request.method must be "tools/call", got "tools/list".',
    );
    expect(message([params, { method: "tools/call", params: { arguments: {} } }])).toBe("[1].params.name is missing.");
    expect(message({ method: "tools/call" })).toBe("request.params is missing.");
    expect(message("add")).toMatch(/^Expected tools\/call params/);
  });

  it("encodes CallToolResults: content, structuredContent for objects, isError with readable text", () => {
    const list = succeeded("c5", "list", { content: [{ type: "text", text: "[1,2]" }], structured: [1, 2] });
    const { results } = mcp.encode([jsonResult("c1"), errorResult("c2"), imageResult("c3"), list]);
    const typed: CallToolResult[] = results;
    expect(typed).toEqual([
      { content: [{ type: "text", text: '{"sum":3}' }], structuredContent: { sum: 3 } },
      {
        content: [
          { type: "text", text: 'Error [invalid_arguments]: b: Invalid type: Expected number but received "2"' },
        ],
        isError: true,
      },
      {
        content: [
          { type: "text", text: "Here is the chart" },
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "resource_link", uri: "https://x.test/c.png", name: "chart.png" },
        ],
      },
      { content: [{ type: "text", text: "[1,2]" }] },
    ]);
    for (const result of results) expect(CallToolResultSchema.safeParse(result).success).toBe(true);
    expect(toCallToolResult(jsonResult("c1"))).toEqual(results[0]);
  });

  it("declares tools the MCP schema accepts, with annotations from the policy", () => {
    const read = defineTool({
      name: "get_weather",
      title: "Weather",
      description: "Weather for a city",
      input: v.object({ city: v.string() }),
      output: v.object({ tempC: v.number() }),
      policy: { readOnly: true },
      run: () => ({ tempC: 20 }),
    });
    const definition: McpSdkTool = mcp.toolDefinition(read);
    expect(ToolSchema.safeParse(definition).success).toBe(true);
    expect(definition).toEqual({
      name: "get_weather",
      title: "Weather",
      description: "Weather for a city",
      inputSchema: read.inputSchema,
      outputSchema: read.outputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    });
    const hints = (policy: Parameters<typeof defineTool>[0]["policy"]) =>
      mcp.toolDefinition(defineTool({ name: "w", description: "", input: v.object({}), policy, run: () => "" }))
        .annotations;
    expect(hints({})).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(hints({ risk: "low" })).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(hints({ risk: "high", idempotent: true })).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
  });

  it("marks adapter tools open-world and leaves out output schemas that are not objects", () => {
    const base = defineTool({
      name: "list",
      description: "",
      input: v.object({}),
      output: v.array(v.number()),
      run: () => [1],
    });
    expect(mcp.toolDefinition(base).outputSchema).toBeUndefined();
    const remote = assembleTool({
      name: "search",
      description: "Remote search",
      source: "mcp:https://x.test/mcp",
      inputSchema: () => ({ type: "object", properties: { q: { type: "string" } } }),
      validateInput: (value) => ({ ok: true, value }),
      run: () => "",
    });
    expect(mcp.toolDefinition(remote).annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
});
