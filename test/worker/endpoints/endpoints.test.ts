import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { checkEndpointViews } from "../../../worker/endpoints/view";
import { checkTenant } from "../../../worker/tenant/tenant";
import { tenantConfigError as error } from "../helpers/config-error";
import { connect, connectV2, openSession, post } from "../helpers/mcp";
import { ADMIN_KEY, BASE, CALL_KEY, json, request } from "../helpers/requests";

/** The demo tenant with two curated endpoints: "math" for every caller, "ops" (search mode) for the admin key. */
const CONFIG = {
  ...DEMO_CONFIG,
  name: "endpoints",
  endpoints: {
    math: { tools: ["tag:math", "echo"] },
    ops: { tools: ["*"], search: { pinned: ["echo"] }, keys: ["dev-admin"] },
  },
};
const vars = { TOOLGATE_CONFIG: JSON.stringify(CONFIG) };
const at = (name: string) => `${BASE}/mcp/${name}`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
async function client(url: string, key = CALL_KEY): Promise<Client> {
  const { client: c } = await connect({ key, vars, url });
  open.push(c);
  return c;
}

/** The JSON-RPC error a call answers, as the SDK client raises it. */
async function callError(c: Client, name: string): Promise<string> {
  const failed = await c.callTool({ name, arguments: {} }).catch((thrown: Error) => thrown);
  expect(failed).toBeInstanceOf(Error);
  return (failed as Error).message;
}

describe("curated MCP endpoints", () => {
  it("lists and calls only the endpoint's selection (2025-11-25)", async () => {
    const math = await client(at("math"));
    expect((await math.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["add", "echo"]);
    const added = await math.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(added.structuredContent).toEqual({ sum: 5 });
    // The whole tenant still has every tool at /mcp.
    const whole = await client(`${BASE}/mcp`);
    expect((await whole.listTools()).tools.map((tool) => tool.name)).toContain("sample_table");
  });

  it("answers a call to a tool outside it as it answers a tool that does not exist", async () => {
    const math = await client(at("math"));
    const outside = await callError(math, "sample_table");
    const missing = await callError(math, "no_such_tool");
    expect(outside.replace("sample_table", "X")).toBe(missing.replace("no_such_tool", "X"));
    expect(outside).toMatch(/Unknown tool "sample_table". Available tools: add, echo\./);
  });

  it("serves the 2026-07-28 revision on the same path", async () => {
    const math = await connectV2({ pin: "2026-07-28" }, { vars, url: at("math") });
    open.push(math);
    expect((await math.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["add", "echo"]);
    const added = await math.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(added.structuredContent).toEqual({ sum: 2 });
  });

  it("has its own search mode, whose searches never reach outside it", async () => {
    const ops = await client(at("ops"), ADMIN_KEY);
    expect((await ops.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["echo", "search_tools"]);
    const found = await ops.callTool({ name: "search_tools", arguments: { query: "a table of sample rows" } });
    expect(JSON.stringify(found.structuredContent)).toContain("sample_table");
    // math is not in search mode, and has no search tool.
    const math = await client(at("math"));
    expect(await callError(math, "search_tools")).toMatch(/Unknown tool "search_tools"/);
  });

  it("refuses a key it does not name, and a name it does not serve", async () => {
    const refused = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { vars, url: at("ops") });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error: { code: "forbidden" } });
    const missing = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { vars, url: at("nope") });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.message).toContain('no MCP endpoint "nope"');
  });

  it("keeps a 2025 session to the endpoint it was opened at", async () => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    // The admin key may use every path: only the path tells them apart.
    const math = await openSession({ vars, url: at("math"), key: ADMIN_KEY });
    expect((await post(ping, math, { vars, url: at("math"), key: ADMIN_KEY })).status).toBe(200);
    for (const url of [`${BASE}/mcp`, at("ops")]) {
      const elsewhere = await post(ping, math, { vars, url, key: ADMIN_KEY });
      expect(elsewhere.status).toBe(404);
      expect((await json(elsewhere)).error.message).toContain("Session not found");
    }
    // And one opened at /mcp is not one of the endpoint's.
    const whole = await openSession({ vars, key: ADMIN_KEY });
    expect((await post(ping, whole, { vars, key: ADMIN_KEY })).status).toBe(200);
    expect((await post(ping, whole, { vars, url: at("math"), key: ADMIN_KEY })).status).toBe(404);
  });

  it("answers 401 with its own resource metadata, and publishes it (RFC 9728 path form)", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, {}, { vars, url: at("math"), key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      `resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/math"`,
    );
    const metadata = await request("/.well-known/oauth-protected-resource/mcp/math", { key: null, env: vars });
    expect(await json(metadata)).toMatchObject({ resource: `${BASE}/mcp/math`, authorization_servers: [BASE] });
    const whole = await request("/.well-known/oauth-protected-resource/mcp", { key: null, env: vars });
    expect((await json(whole)).resource).toBe(`${BASE}/mcp`);
  });
});

describe("curated endpoints' configuration errors name the field", () => {
  const withEndpoints = (endpoints: unknown) => ({ ...CONFIG, endpoints });
  it.each([
    [{ sse: { tools: ["add"] } }, /endpoints\.sse: is a route's name/],
    [{ Bad: { tools: ["add"] } }, /endpoints\.Bad: must be lowercase/],
    [{ m: { tools: [] } }, /endpoints\.m\.tools: must name at least one tool/],
  ])("at startup: %j", (endpoints, message) => {
    expect(error(withEndpoints(endpoints))).toMatch(message);
  });

  // Checked against the tools when the endpoint is first used, and by the deploy's check (tools-check.ts).
  it.each([
    [{ m: { tools: ["add", "nope"] } }, /endpoints\.m\.tools\[1\]: "nope" is not one of the tenant's tools/],
    [{ m: { tools: ["tag:nope"] } }, /endpoints\.m\.tools\[0\]: no tool has the tag "nope"/],
    [{ m: { tools: ["server:gh"] } }, /endpoints\.m\.tools\[0\]: no remote MCP server is named "gh"/],
    [
      { m: { tools: ["add"], roles: ["ops"], keys: ["dev-call"] } },
      /endpoints\.m\.roles\[0\]: "ops" is not one of identity\.roles/,
    ],
    [{ m: { tools: ["add"], search: { tool: "add" } } }, /endpoints\.m\.search\.tool: "add" is one of the endpoint/],
    [{ m: { tools: ["add"], search: { pinned: ["echo"] } } }, /endpoints\.m\.search\.pinned\[0\]: "echo" is not/],
  ])("at first use and deploy: %j", async (endpoints, message) => {
    const config = withEndpoints(endpoints);
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "ping" },
      {},
      { vars: { TOOLGATE_CONFIG: JSON.stringify(config) }, url: at("m") },
    );
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({
      error: { code: "config_invalid", message: expect.stringMatching(message) },
    });
    await expect(checkEndpointViews(checkTenant(config))).rejects.toThrow(message);
  });
});
