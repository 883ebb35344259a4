import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { httpToolsConfig } from "../../../bench/lib/tenant-growth";
import { FORMAT_NAMES } from "../../../src/formats";
import { createApp } from "../../../worker/app";
import type { BundledConfig } from "../../../worker/tenant/bundled-config";
import { listingsKey } from "../../../worker/tenant/listings/key";
import { precomputeListings } from "../../../worker/tenant/listings/precompute";
import { createCatalog, type Catalog } from "../../../worker/tenant/catalog";
import { withPolicy } from "../../../worker/tenant/registry";
import { checkTenant } from "../../../worker/tenant/tenant";
import { TEST_CATALOG } from "../../fixtures/catalog";
import { upstreams } from "../helpers/adapters";
import { ADMIN_KEY, BASE, CALL_KEY, CALL_KEY_HASH } from "../helpers/requests";

const SOURCE = "tenants/precomputed.json";
const sha256 = async (text: string) =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
const ADMIN_KEY_HASH = await sha256(ADMIN_KEY);

/**
 * A tenant configuration with the test keys, under a name of its own (its runtime keys live in its own Keys object).
 */
function withKeys(config: Record<string, unknown>): Record<string, unknown> {
  const keys = [
    { name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] },
    { name: "call", hash: CALL_KEY_HASH, scopes: ["call"] },
  ];
  return { ...config, name: `${config.name as string}-${crypto.randomUUID().slice(0, 8)}`, keys };
}

/** What the build writes for this configuration (scripts/tools-check.ts), computed the same way. */
async function precomputed(config: unknown, catalog: Catalog = TEST_CATALOG): Promise<string> {
  const tenant = checkTenant(config, SOURCE, catalog);
  return precomputeListings(tenant, await listingsKey(config, tenant, catalog));
}

const appWith = (bundled: BundledConfig) => createApp({ catalog: TEST_CATALOG, bundled });
const loader = (text: string) => async () => ({ default: text });
/** Without TOOLGATE_CONFIG and the demo: the bundled configuration is the tenant's. */
const ENV = { ...env, TOOLGATE_DEMO: "false" };

type App = ReturnType<typeof createApp>;

async function get(app: App, path: string, key: string): Promise<Response> {
  return app.request(`${BASE}${path}`, { headers: { authorization: `Bearer ${key}` } }, ENV);
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const MODERN = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function mcp(app: App, key: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  const init = {
    method: "POST",
    headers: { ...MCP_HEADERS, authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  };
  return app.request(`${BASE}/mcp`, init, ENV);
}

/** Every page of tools/list, as answered (text), in a 2026-07-28 stateless request or a 2025-11-25 session. */
async function mcpPages(app: App, key: string, era: "modern" | "legacy"): Promise<string[]> {
  let headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
  if (era === "legacy") {
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } };
    const opened = await mcp(app, key, { jsonrpc: "2.0", id: 0, method: "initialize", params: init }, {});
    expect(opened.status).toBe(200);
    headers = { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  }
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const params = { ...(era === "modern" ? { _meta: MODERN } : {}), ...(cursor === undefined ? {} : { cursor }) };
    const res = await mcp(app, key, { jsonrpc: "2.0", id: pages.length + 1, method: "tools/list", params }, headers);
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    pages.push(text);
    cursor = (JSON.parse(text) as { result: { nextCursor?: string } }).result.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

/** A runtime key (admin API) allowed only these tools. */
async function allowListKey(app: App, tools: readonly string[]): Promise<string> {
  const init = {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "allow-list", scopes: ["call"], tools }),
  };
  const res = await app.request(`${BASE}/v1/keys`, init, ENV);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

/** Every listing answer, by what was asked, as text: GET /v1/tools and each format's, MCP pages of both eras. */
async function listings(app: App, keys: Record<string, string>): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const [who, key] of Object.entries(keys)) {
    for (const path of ["/v1/tools", ...FORMAT_NAMES.map((format) => `/v1/tools/${format}`)]) {
      const res = await get(app, path, key);
      answers[`${who} GET ${path}`] = `${res.status} ${res.headers.get("content-type")} ${await res.text()}`;
    }
    for (const era of ["modern", "legacy"] as const) {
      for (const [i, page] of (await mcpPages(app, key, era)).entries()) answers[`${who} MCP ${era} page ${i}`] = page;
    }
  }
  return answers;
}

/** The same configuration served with its precomputed listings and built at runtime: every answer byte-identical. */
async function compare(config: Record<string, unknown>, allowed: (names: readonly string[]) => string[]) {
  const text = await precomputed(config);
  let loads = 0;
  const withListings = appWith({ config, source: SOURCE, listings: async () => (loads++, { default: text }) });
  const names = checkTenant(config, SOURCE, TEST_CATALOG).registry.names();
  // Runtime keys live in the tenant's Keys object: one key serves both apps.
  const keys = { call: CALL_KEY, admin: ADMIN_KEY, "allow-list": await allowListKey(withListings, allowed(names)) };
  const served = await listings(withListings, keys);
  const built = await listings(appWith({ config, source: SOURCE }), keys);
  expect(loads).toBe(1);
  expect(Object.keys(served)).toEqual(Object.keys(built));
  for (const what of Object.keys(built)) expect(served[what], what).toBe(built[what]);
  return { text, names, served };
}

describe("a bundled tenant's precomputed listings", () => {
  it("answer every listing byte for byte as built for acme, for every key", async () => {
    const acme = JSON.parse(JSON.stringify((await import("../../../tenants/acme.json")).default)) as Record<
      string,
      unknown
    >;
    await compare(withKeys(acme), (names) => names.filter((_, i) => i % 2 === 0));
  });

  it("answer every listing byte for byte as built for 1,000 declared tools, MCP pages and allow-lists included", async () => {
    const { served, names } = await compare(withKeys({ ...httpToolsConfig(1000) }), (names) =>
      names.filter((_, i) => i % 5 === 2).slice(0, 150),
    );
    expect(names).toHaveLength(1000);
    expect(Object.keys(served).filter((what) => what.startsWith("call MCP modern"))).toHaveLength(10);
    expect(Object.keys(served).filter((what) => what.startsWith("allow-list MCP legacy"))).toHaveLength(2);
  });

  it("keep what formats skip, the tools that run as tasks and the tenant's effective policies", async () => {
    const config = withKeys({
      name: "variety",
      tools: ["*"],
      requireApprovalFor: { risk: ["high"], tools: ["echo"] },
      deny: ["fail"],
      policies: { sleep_pool: { concurrency: { limit: 2 } }, add: { timeoutMs: 1234 } },
    });
    const { text, served } = await compare(config, (names) => names.filter((_, i) => i % 3 !== 1));
    const header = JSON.parse(text.slice(0, text.indexOf("\n")));
    // Not vacuous: some tool runs as a task, Gemini's schema subset skips some, the listings hold effective policies.
    expect(Object.keys(header.tasks).length).toBeGreaterThan(0);
    expect(
      Object.entries(header.sections)
        .filter(([, section]) => (section as { skipped: number[] }).skipped.length > 0)
        .map(([name]) => name),
    ).toEqual(["gemini"]);
    expect(served["call GET /v1/tools/gemini"]).toContain(',"skipped":[{"name":');
    expect(served["call MCP modern page 0"]).toContain('"taskSupport"');
    expect(served["call GET /v1/tools"]).toContain('"denied":true');
  });

  it("are served as the build wrote them, and never when their key does not match", async () => {
    const config = withKeys({ name: "stale", tools: ["add", "echo"] });
    const text = await precomputed(config);
    expect(text).toContain("Add two numbers");
    // Same length, so every entry stays where the header says: the Worker serves the file's text.
    const marked = text.replace("Add two numbers", "ADD TWO NUMBERS");
    const served = await (
      await get(appWith({ config, source: SOURCE, listings: loader(marked) }), "/v1/tools/openai", CALL_KEY)
    ).text();
    expect(served).toContain("ADD TWO NUMBERS");

    // Computed for another configuration (another description of nothing the listing shows, even): built instead.
    const other = await precomputed({ ...config, limits: { maxCallsPerBatch: 7 } });
    const stale = other.replace("Add two numbers", "ADD TWO NUMBERS");
    const fresh = await (await get(appWith({ config, source: SOURCE }), "/v1/tools/openai", CALL_KEY)).text();
    expect(
      await (
        await get(appWith({ config, source: SOURCE, listings: loader(stale) }), "/v1/tools/openai", CALL_KEY)
      ).text(),
    ).toBe(fresh);
    // Built with another definition of a code tool the tenant offers (here, its policy): built instead.
    const otherCatalog = createCatalog(
      [...TEST_CATALOG.values()],
      [withPolicy(TEST_CATALOG.get("add")!, { timeoutMs: 999 })],
    );
    const otherTools = (await precomputed(config, otherCatalog)).replace("Add two numbers", "ADD TWO NUMBERS");
    expect(
      await (
        await get(appWith({ config, source: SOURCE, listings: loader(otherTools) }), "/v1/tools/openai", CALL_KEY)
      ).text(),
    ).toBe(fresh);
    // Not a file of this layout, or not loadable: built too.
    expect(
      await (
        await get(appWith({ config, source: SOURCE, listings: loader("{}\n") }), "/v1/tools/openai", CALL_KEY)
      ).text(),
    ).toBe(fresh);
    const failing = async () => Promise.reject(new Error("no such module"));
    expect(
      await (await get(appWith({ config, source: SOURCE, listings: failing }), "/v1/tools/openai", CALL_KEY)).text(),
    ).toBe(fresh);
  });

  it("give way to a listing built with the remote MCP tools of a tenant's servers", async () => {
    const config = withKeys({
      name: "remote",
      tools: ["add"],
      egress: { allowHttpHosts: ["127.0.0.1"] },
      mcp: [
        {
          name: "t",
          url: upstreams.mcp,
          prefix: "t_",
          tools: ["echo", "add"],
          auth: { type: "bearer", secret: "MCP" },
        },
      ],
      secrets: { MCP: "ADAPTER_MCP_TOKEN" },
    });
    const marked = (await precomputed(config)).replace("Add two numbers", "ADD TWO NUMBERS");
    const vars = { ...ENV, ADAPTER_MCP_TOKEN: "mcp-token-for-the-test-server" };
    const list = async (app: App) =>
      (await app.request(`${BASE}/v1/tools/openai`, { headers: { authorization: `Bearer ${CALL_KEY}` } }, vars)).text();
    const served = await list(appWith({ config, source: SOURCE, listings: loader(marked) }));
    expect(served).toContain('"name":"t_echo"');
    expect(served).not.toContain("ADD TWO NUMBERS");
    expect(served).toBe(await list(appWith({ config, source: SOURCE })));
  });

  it("give way to TOOLGATE_CONFIG, which builds its listings", async () => {
    const config = withKeys({ name: "bundled", tools: ["add", "echo"] });
    const marked = (await precomputed(config)).replace("Add two numbers", "ADD TWO NUMBERS");
    const app = appWith({ config, source: SOURCE, listings: loader(marked) });
    const res = await app.request(
      `${BASE}/v1/tools/openai`,
      { headers: { authorization: `Bearer ${CALL_KEY}` } },
      { ...ENV, TOOLGATE_CONFIG: JSON.stringify(config) },
    );
    const text = await res.text();
    expect(text).toContain("Add two numbers");
    expect(text).not.toContain("ADD TWO NUMBERS");
  });
});
