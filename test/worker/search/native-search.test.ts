import { describe, expect, it } from "vitest";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/** The demo tenant in search mode for the call key: "add" pinned, "fail" denied. */
const CONFIG = {
  ...DEMO_CONFIG,
  name: "native-search",
  deny: ["fail"],
  search: { pinned: ["add"], keys: ["dev-call"] },
};
const env = { TOOLGATE_CONFIG: JSON.stringify(CONFIG) };

interface Definition {
  type?: string;
  name?: string;
  defer_loading?: boolean;
  input_schema?: unknown;
  parameters?: unknown;
  function?: { name: string };
}
async function listing(format: string, key?: string): Promise<Definition[]> {
  const res = await request(`/v1/tools/${format}`, { env, ...(key ? { key } : {}) });
  expect(res.status).toBe(200);
  return (await json(res)).tools;
}

/** The demo tools a search-mode listing defers: every tool but the pinned, the denied and the search tool. */
async function deferrable(): Promise<string[]> {
  const all = await listing("mcp", ADMIN_KEY);
  return all.map((tool) => tool.name!).filter((name) => !["add", "fail", "search_tools"].includes(name));
}

describe("search mode's listings with the model API's own tool search", () => {
  it("Anthropic: the BM25 tool search tool, the pinned tools, every other tool deferred", async () => {
    const tools = await listing("anthropic");
    expect(tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(tools[1]).toMatchObject({ name: "add", input_schema: { type: "object" } });
    expect(tools[1]).not.toHaveProperty("defer_loading");
    const deferred = tools.slice(2);
    expect(deferred.map((tool) => tool.name).sort()).toEqual((await deferrable()).sort());
    for (const tool of deferred) {
      expect(tool.defer_loading).toBe(true);
      expect(tool.input_schema).toMatchObject({ type: "object" });
    }
  });

  it("OpenAI Responses: tool_search, the pinned functions, every other function deferred", async () => {
    const tools = await listing("openai-responses");
    expect(tools[0]).toEqual({ type: "tool_search" });
    expect(tools[1]).toMatchObject({ type: "function", name: "add" });
    expect(tools[1]).not.toHaveProperty("defer_loading");
    const deferred = tools.slice(2);
    expect(deferred.map((tool) => tool.name).sort()).toEqual((await deferrable()).sort());
    for (const tool of deferred) expect(tool).toMatchObject({ type: "function", defer_loading: true });
  });

  it("keeps toolgate's search tool where the API has no tool search (Chat Completions, MCP)", async () => {
    const openai = await listing("openai");
    expect(openai.map((tool) => tool.function!.name).sort()).toEqual(["add", "search_tools"]);
    const mcp = await listing("mcp");
    expect(mcp.map((tool) => tool.name).sort()).toEqual(["add", "search_tools"]);
  });

  it("defers only the tools a key's allow-list lets through", async () => {
    const everyone = {
      TOOLGATE_CONFIG: JSON.stringify({ ...CONFIG, name: "native-search-keys", search: { pinned: ["add"] } }),
    };
    const created = await request("/v1/keys", {
      key: ADMIN_KEY,
      env: everyone,
      body: { name: `add-echo-${crypto.randomUUID().slice(0, 8)}`, scopes: ["call"], tools: ["add", "echo"] },
    });
    expect(created.status).toBe(201);
    const res = await request("/v1/tools/anthropic", { env: everyone, key: (await json(created)).secret });
    const tools: Definition[] = (await json(res)).tools;
    expect(tools.map((tool) => [tool.name, tool.defer_loading])).toEqual([
      ["tool_search_tool_bm25", undefined],
      ["add", undefined],
      ["echo", true],
    ]);
  });

  it("lists every tool whole for a key outside search.keys", async () => {
    const tools = await listing("anthropic", ADMIN_KEY);
    expect(tools.some((tool) => tool.type !== undefined)).toBe(false);
    expect(tools.some((tool) => tool.defer_loading)).toBe(false);
    expect(tools.map((tool) => tool.name)).toContain("search_tools");
  });
});
