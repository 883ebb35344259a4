import { describe, expect, it } from "vitest";
import { CODER, CODER_KEY } from "../../servers/orders-model";
import { connect } from "../helpers/mcp";
import { ADMIN_KEY, BASE, CALL_KEY_HASH, json, request } from "../helpers/requests";

/** A second configured key, whose code mode the tests set. */
const OTHER_KEY = CODER;
const OTHER_HASH = CODER_KEY.hash;
const ADMIN_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";

let tenants = 0;
/** A tenant of add, echo and fail with code mode (unless overridden); each test its own. */
function tenant(overrides: Record<string, unknown> = {}, other: Record<string, unknown> = {}) {
  const config = {
    name: `scope-${++tenants}-${crypto.randomUUID().slice(0, 8)}`,
    tools: ["add", "echo", "fail"],
    keys: [
      { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
      { name: "other", hash: OTHER_HASH, scopes: ["call"], ...other },
      { name: "admin", hash: ADMIN_HASH, scopes: ["admin"] },
    ],
    codeMode: {},
    ...overrides,
  };
  return { TOOLGATE_CONFIG: JSON.stringify(config) };
}

type Definition = { function: { name: string; description: string } };

/** The names (and the code tool's description) GET /v1/tools/openai lists for a key. */
async function listing(env: Record<string, string>, key?: string) {
  const tools = (await json(await request("/v1/tools/openai", { env, ...(key ? { key } : {}) }))).tools as Definition[];
  const code = tools.find((tool) => tool.function.name === "run_code");
  return { names: tools.map((tool) => tool.function.name), description: code?.function.description };
}

let ids = 0;
type Result = {
  status: string;
  output?: { structured?: { result?: unknown } };
  error?: { code: string; message: string };
};
/** One call through POST /v1/calls/openai: its record. */
async function call(env: Record<string, string>, name: string, args: unknown, key?: string): Promise<Result> {
  const id = `scope_${++ids}_${crypto.randomUUID().slice(0, 6)}`;
  const body = { tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] };
  const answer = await json(await request("/v1/calls/openai", { body, env, ...(key ? { key } : {}) }));
  return answer.calls[0] as Result;
}
const runCode = (env: Record<string, string>, code: string, key?: string) => call(env, "run_code", { code }, key);

describe("code mode per key", () => {
  it("a configured key turns it on in a tenant whose default is off; others get no code tool", async () => {
    const env = tenant({ codeMode: { default: "off" } }, { codeMode: "on" });
    expect((await listing(env)).names).toEqual(["add", "echo", "fail"]);
    expect((await runCode(env, "return 1;")).error?.code).toBe("unknown_tool");
    expect((await listing(env, OTHER_KEY)).names).toEqual(["add", "echo", "fail", "run_code"]);
    const run = await runCode(env, "return (await tools.add({ a: 2, b: 3 })).sum;", OTHER_KEY);
    expect(run.output?.structured?.result).toBe(5);
  });

  it("a configured key turns it off", async () => {
    const env = tenant({}, { codeMode: "off" });
    expect((await listing(env)).names).toContain("run_code");
    expect((await listing(env, OTHER_KEY)).names).toEqual(["add", "echo", "fail"]);
    expect((await runCode(env, "return 1;", OTHER_KEY)).error?.code).toBe("unknown_tool");
  });

  it("a key made by the API offers only the code tool, its API the key's allow-list", async () => {
    const env = tenant();
    const body = { name: "coder", scopes: ["call"], tools: ["add"], codeMode: "only" };
    const created = await request("/v1/keys", { key: ADMIN_KEY, env, body });
    expect(created.status).toBe(201);
    const { secret, key } = await json(created);
    expect(key.codeMode).toBe("only");
    const { names, description } = await listing(env, secret);
    expect(names).toEqual(["run_code"]);
    expect(description).toContain("  add(input: {");
    expect(description).not.toContain("echo(");
    // The whole tenant's code tool still declares every tool.
    expect((await listing(env)).description).toContain("echo(");
    const run = await runCode(env, "return (await tools.add({ a: 1, b: 1 })).sum;", secret);
    expect(run.output?.structured?.result).toBe(2);
    const outside = await runCode(env, "return await tools.echo({ text: 'x' });", secret);
    expect(outside.error?.message).toMatch(/^TypeError \(line 1\): tools\.echo is not a function/);
    // Listed alone, the key's tools stay callable by name, as in search mode.
    expect((await call(env, "add", { a: 1, b: 2 }, secret)).output?.structured).toEqual({ sum: 3 });
  });

  it.each([
    [{ codeMode: "sometimes" }, {}, /^codeMode: must be "on", "off" or "only"$/],
    [{ codeMode: "on" }, { codeMode: undefined }, /^codeMode: "on" needs the tenant's codeMode block/],
  ])("bad key settings get a clear 400: %j", async (settings, overrides, message) => {
    const env = tenant(overrides);
    const res = await request("/v1/keys", {
      key: ADMIN_KEY,
      env,
      body: { name: "bad", scopes: ["call"], ...settings },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: "invalid_body", message: expect.stringMatching(message) });
  });

  it.each([
    [{}, { codeMode: "maybe" }, /keys\[1\]\.codeMode: must be "on", "off" or "only"/],
    [{ codeMode: undefined }, { codeMode: "only" }, /keys\[1\]\.codeMode: "only" needs the tenant's codeMode block/],
    [
      { codeMode: undefined, endpoints: { m: { tools: ["add"], codeMode: "on" } } },
      {},
      /endpoints\.m\.codeMode: "on" needs/,
    ],
    [{ codeMode: { default: "all" } }, {}, /codeMode\.default: must be "on", "off" or "only"/],
  ])("configuration errors name the field: %j %j", async (overrides, other, message) => {
    const res = await request("/v1/tools", { env: tenant(overrides, other) });
    expect(res.status).toBe(500);
    expect((await json(res)).error).toMatchObject({ code: "config_invalid", message: expect.stringMatching(message) });
  });
});

describe("code mode per endpoint", () => {
  const endpoints = {
    math: { tools: ["add"], codeMode: "only" },
    text: { tools: ["echo", "add"], codeMode: "off" },
    plain: { tools: ["*"] },
  };

  it("an endpoint listing only the code tool, whose API is its selection", async () => {
    const vars = tenant({ endpoints });
    const { client } = await connect({ vars, url: `${BASE}/mcp/math` });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["run_code"]);
      expect(tools[0]!.description).toContain("  add(input: {");
      expect(tools[0]!.description).not.toContain("echo(");
      const ran = await client.callTool({
        name: "run_code",
        arguments: { code: "return (await tools.add({ a: 4, b: 5 })).sum;" },
      });
      expect(ran.structuredContent).toMatchObject({ result: 9 });
      const outside = await client.callTool({
        name: "run_code",
        arguments: { code: "return await tools.echo({ text: 'x' });" },
      });
      expect(outside.isError).toBe(true);
      expect(JSON.stringify(outside.content)).toMatch(/tools\.echo is not a function/);
    } finally {
      await client.close();
    }
  });

  it("an endpoint turning it off; one setting none follows the key, its API its own tools", async () => {
    const vars = tenant({ endpoints });
    const text = await connect({ vars, url: `${BASE}/mcp/text` });
    try {
      expect((await text.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "echo"]);
      const refused = text.client.callTool({ name: "run_code", arguments: { code: "return 1;" } });
      await expect(refused).rejects.toThrow(/Unknown tool "run_code"\. Available tools: add, echo\./);
    } finally {
      await text.client.close();
    }
    const off = tenant({ endpoints }, { codeMode: "off" });
    const plain = await connect({ vars: off, url: `${BASE}/mcp/plain`, key: OTHER_KEY });
    try {
      expect((await plain.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "echo", "fail"]);
    } finally {
      await plain.client.close();
    }
    const on = await connect({ vars: off, url: `${BASE}/mcp/plain` });
    try {
      expect((await on.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "echo", "fail", "run_code"]);
    } finally {
      await on.client.close();
    }
  });
});
