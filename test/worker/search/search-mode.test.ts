import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { tenantConfigError as error } from "../helpers/config-error";
import { connect } from "../helpers/mcp";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";

/** The demo tenant in search mode: "add" pinned, "fail" denied. */
const SEARCH_CONFIG = {
  ...DEMO_CONFIG,
  name: "search-mode",
  deny: ["fail"],
  search: { pinned: ["add"] },
};
const vars = (config: unknown = SEARCH_CONFIG) => ({ TOOLGATE_CONFIG: JSON.stringify(config) });

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
async function client(key = CALL_KEY, config?: unknown) {
  const { client: c } = await connect({ key, vars: vars(config) });
  open.push(c);
  return c;
}

interface Found {
  tools: { name: string; description: string; inputSchema: { properties?: Record<string, unknown> } }[];
  note?: string;
}
async function search(c: Client, query: string, limit?: number): Promise<Found> {
  const result = await c.callTool({ name: "search_tools", arguments: { query, ...(limit ? { limit } : {}) } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as unknown as Found;
}

describe("search mode", () => {
  it("lists the pinned tools and the search tool, in every listing", async () => {
    const names = (await (await client()).listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(["add", "search_tools"]);
    const openai = await json(await request("/v1/tools/openai", { env: vars() }));
    expect(openai.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
      "add",
      "search_tools",
    ]);
    const own = await json(await request("/v1/tools", { env: vars() }));
    expect(own.tools.map((t: { name: string }) => t.name).sort()).toEqual(["add", "search_tools"]);
  });

  it("answers the best tools' full definitions, then calls one by name through the pipeline", async () => {
    const c = await client();
    const found = await search(c, "return my text unchanged");
    expect(found.tools[0]).toMatchObject({ name: "echo", description: "Return the text unchanged." });
    expect(found.tools[0]!.inputSchema.properties).toHaveProperty("text");
    const echoed = await c.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed.content)).toContain("hi");
  });

  it("never shows the search tool itself or a denied tool", async () => {
    const c = await client();
    const found = await search(c, "fail with an error search tools", 20);
    const names = found.tools.map((tool) => tool.name);
    expect(names).not.toContain("fail");
    expect(names).not.toContain("search_tools");
  });

  it("answers a search at once where the tenant asks approval for its tools' risk (never parked)", async () => {
    const config = { ...SEARCH_CONFIG, name: "search-approval", requireApprovalFor: { risk: ["low"] } };
    const created = await request("/v1/keys", {
      key: ADMIN_KEY,
      env: vars(config),
      body: { name: `only-add-${crypto.randomUUID().slice(0, 8)}`, scopes: ["call"], tools: ["add"] },
    });
    expect(created.status).toBe(201);
    const c = await client((await json(created)).secret, config);
    // A parked search would later run for its owner without the key's allow-list: it never parks.
    expect((await search(c, "return the text unchanged, echo")).tools.map((tool) => tool.name)).not.toContain("echo");
    const listed = await json(await request("/v1/tools", { env: vars(config) }));
    const tool = listed.tools.find((t: { name: string }) => t.name === "search_tools");
    expect(tool.policy.approval).toBe("never");
  });

  it("shows a key with an allow-list only its tools, and lets it call the search tool", async () => {
    const created = await request("/v1/keys", {
      key: ADMIN_KEY,
      env: vars(),
      body: { name: `only-add-${crypto.randomUUID().slice(0, 8)}`, scopes: ["call"], tools: ["add", "send_message"] },
    });
    expect(created.status).toBe(201);
    const { secret } = await json(created);
    const c = await client(secret);
    expect((await c.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["add", "search_tools"]);
    expect((await search(c, "return the text unchanged, echo")).tools.map((tool) => tool.name)).not.toContain("echo");
    expect((await search(c, "send a message to someone")).tools.map((tool) => tool.name)).toEqual(["send_message"]);
  });

  it("lists only the named keys in search mode when search.keys is set", async () => {
    const config = { ...SEARCH_CONFIG, search: { pinned: ["add"], keys: ["dev-admin"] } };
    const names = (await (await client(CALL_KEY, config)).listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("echo");
    expect((await (await client(ADMIN_KEY, config)).listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      "add",
      "search_tools",
    ]);
  });

  it("answers bad queries clearly: empty, too long, symbols only, other scripts", async () => {
    const c = await client();
    const empty = await c.callTool({ name: "search_tools", arguments: { query: "   " } });
    expect(empty.isError).toBe(true);
    expect(JSON.stringify(empty.content)).toContain("query is empty");
    const long = await c.callTool({ name: "search_tools", arguments: { query: "x".repeat(501) } });
    expect(long.isError).toBe(true);
    expect((await search(c, "🚀🔥 .*+?^$ {}()|[]\\")).note).toMatch(/no words to search for/);
    expect(await search(c, "добавить два числа 数字")).toEqual({ tools: [], note: expect.stringMatching(/no tool/) });
  });

  it("refuses a configuration naming an unknown pinned tool, or a search tool named like a tool", () => {
    expect(error({ ...SEARCH_CONFIG, search: { pinned: ["nope"] } })).toMatch(
      /search\.pinned: "nope" is not one of the tenant's tools/,
    );
    expect(error({ ...SEARCH_CONFIG, search: { tool: "echo" } })).toMatch(/search\.tool: "echo" is the name of/);
    expect(error({ ...SEARCH_CONFIG, search: { results: 50 } })).toMatch(/search\.results: must be at most 20/);
  });
});
