import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpServer, type McpServerDeclaration, type McpServerDeps } from "../../../src/adapters/mcp";
import { fromCallResult } from "../../../src/adapters/mcp/content";
import { contentText } from "../../../src/result";
import { createEgressFetch } from "../../../src/egress";
import type { CallEvent } from "../../../src/events";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import { startMcpServer, type McpTestServer } from "../../servers/mcp-server";
import { until } from "./mcp-helpers";

const SECRETS = { MCP_TOKEN: "mcp-token-0123456789", OTHER: "unrelated-secret-987654" };
/** Plain http to this server's origin only (its port of 127.0.0.1). */
const egressFor = (url: string) => createEgressFetch({ allowHosts: [], allowHttpHosts: [new URL(url).origin] });
let fetch: typeof globalThis.fetch;
const deps = (over: Partial<McpServerDeps> = {}): McpServerDeps => ({ fetch, secrets: SECRETS, ...over });

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpServer();
  fetch = egressFor(server.url);
});
afterAll(() => server.close());

const declare = (over: Partial<McpServerDeclaration> = {}): McpServerDeclaration => ({
  name: "remote",
  url: server.url,
  prefix: "r_",
  auth: { type: "bearer", secret: "MCP_TOKEN" },
  ...over,
});

async function call(
  tools: Tool[],
  name: string,
  args: unknown,
  extra: { onEvent?: (e: CallEvent) => void; fetch?: typeof globalThis.fetch } = {},
) {
  return executeCall(
    { id: `c_${Math.random()}`, name, arguments: args },
    {
      registry: createRegistry(tools),
      secrets: SECRETS,
      fetch: extra.fetch ?? fetch,
      ...(extra.onEvent ? { hooks: { onEvent: extra.onEvent } } : {}),
    },
  );
}

describe("mcpServer: listing", () => {
  it("lists every page, prefixes and sanitises names, converts schemas", async () => {
    const source = mcpServer(declare(), deps());
    const tools = await source.tools();
    expect(tools.map((t) => t.name)).toEqual([
      "r_echo",
      "r_add",
      "r_fail",
      "r_slow",
      "r_bump",
      "r_ask",
      "r_rpc_fail",
      "r_dotted_name",
    ]);
    const pages = server.requests.filter((r) => (r.body as { method?: string })?.method === "tools/list");
    expect(pages.map((r) => (r.body as { params?: { cursor?: string } }).params?.cursor)).toEqual([
      undefined,
      "2",
      "4",
      "6",
    ]);
    const echo = tools[0] as Tool;
    expect(echo.source).toBe(`mcp:${server.url}`);
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    expect(echo.validateInput({ text: 1 }).ok).toBe(false);
    expect((tools[1] as Tool).outputSchema).toMatchObject({ properties: { sum: { type: "number" } } });
  });

  it("keeps only allow-listed tools and never takes policy from remote annotations", async () => {
    const tools = await mcpServer(declare({ tools: ["echo", "add"], risk: "high" }), deps()).tools();
    expect(tools.map((t) => t.name)).toEqual(["r_echo", "r_add"]);
    expect(tools[0]?.policy).toEqual({ risk: "high" }); // echo says readOnlyHint: true; ignored
  });

  it("caches the list for its time-to-live", async () => {
    const count = () => server.requests.filter((r) => (r.body as { method?: string })?.method === "tools/list").length;
    const cached = mcpServer(declare(), deps());
    await cached.tools();
    const before = count();
    await cached.tools();
    expect(count()).toBe(before);
    const uncached = mcpServer(declare({ cacheTtlMs: 0 }), deps());
    await uncached.tools();
    const mid = count();
    await uncached.tools();
    expect(count()).toBe(mid + 4);
  });

  it("rejects bad declarations naming the server and the field", () => {
    expect(() => mcpServer({ name: "x", url: "ftp://nope" }, deps())).toThrow(/MCP server "x": invalid url/);
    expect(() => mcpServer({ name: "x", url: server.url, pinning: "sometimes" } as never, deps())).toThrow(
      /MCP server "x": invalid pinning/,
    );
    expect(() =>
      mcpServer({ name: "x", url: server.url, auth: { type: "bearer", secret: "bad name" } }, deps()),
    ).toThrow(/invalid auth.secret/);
  });
});

describe("mcpServer: calls", () => {
  it("proxies tools/call: text, structured content, and sends only the configured credential", async () => {
    const tools = await mcpServer(declare(), deps()).tools();
    const echoed = await call(tools, "r_echo", { text: "hi" });
    expect(echoed.ok && echoed.output.content).toEqual([{ type: "text", text: "echo: hi" }]);
    const added = await call(tools, "r_add", { a: 2, b: 3 });
    expect(added.ok && added.output.structured).toEqual({ sum: 5 });
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${SECRETS.MCP_TOKEN}`);
      expect(JSON.stringify(request.headers)).not.toContain(SECRETS.OTHER);
    }
    const last = server.requests.at(-1);
    expect(last?.headers["mcp-session-id"]).toMatch(/.+/);
    expect(last?.headers["mcp-protocol-version"]).toBe("2025-11-25");
  });

  it("maps isError to tool_error and a JSON-RPC error to upstream_error", async () => {
    const tools = await mcpServer(declare(), deps()).tools();
    const failed = await call(tools, "r_fail", {});
    expect(!failed.ok && failed.error).toMatchObject({ code: "tool_error", message: "it failed on purpose" });
    const broken = await call(tools, "r_rpc_fail", {});
    expect(!broken.ok && broken.error.code).toBe("upstream_error");
    expect(!broken.ok && broken.error.message).toMatch(/JSON-RPC error -32603: .*the server broke/);
  });

  it("refuses a server's request for sampling on the call's stream at once: the call fails saying so, not at its timeout", async () => {
    const tools = await mcpServer(declare({ timeoutMs: 20_000 }), deps()).tools();
    const started = Date.now();
    const asked = await call(tools, "r_ask", {});
    expect(!asked.ok && asked.error.message).toMatch(
      /toolgate cannot answer sampling\/createMessage for a remote server/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    const refusal = server.requests.find((r) => (r.body as { error?: unknown })?.error !== undefined);
    expect(refusal?.body).toMatchObject({
      error: { code: -32601, message: "toolgate cannot answer sampling/createMessage for a remote server" },
    });
  });

  it("validates arguments against the remote schema before calling", async () => {
    const tools = await mcpServer(declare(), deps()).tools();
    const calls = server.requests.length;
    const bad = await call(tools, "r_add", { a: "2" });
    expect(!bad.ok && bad.error.code).toBe("invalid_arguments");
    expect(server.requests.length).toBe(calls);
  });

  it("forwards progress and sends notifications/cancelled when the call times out", async () => {
    const tools = await mcpServer(declare({ timeoutMs: 300 }), deps()).tools();
    const events: CallEvent[] = [];
    const result = await call(tools, "r_slow", { ms: 5000 }, { onEvent: (e) => events.push(e) });
    expect(!result.ok && result.error.code).toBe("timeout");
    expect(events.find((e) => e.type === "call.progress")).toMatchObject({
      progress: { progress: 1, total: 2, message: "halfway" },
    });
    await until(() => server.cancelled.length > 0);
    const note = server.requests.find((r) => (r.body as { method?: string })?.method === "notifications/cancelled");
    expect(note?.body).toMatchObject({ params: { requestId: expect.any(Number) } });
  });

  it("starts a new session when the server forgets the old one", async () => {
    const tools = await mcpServer(declare(), deps()).tools();
    expect((await call(tools, "r_echo", { text: "a" })).ok).toBe(true);
    server.expireSessions();
    const again = await call(tools, "r_echo", { text: "b" });
    expect(again.ok && again.output.content).toEqual([{ type: "text", text: "echo: b" }]);
  });

  it("a connection cut mid-answer is a retryable upstream_error, not repeated; the next call starts a new session", async () => {
    const own = await startMcpServer();
    try {
      const ownFetch = egressFor(own.url);
      const tools = await mcpServer(declare({ url: own.url }), deps({ fetch: ownFetch })).tools();
      const cutOnProgress = (event: CallEvent) => event.type === "call.progress" && own.dropConnections();
      const cut = await call(tools, "r_slow", { ms: 2000 }, { onEvent: cutOnProgress, fetch: ownFetch });
      expect(!cut.ok && cut.error).toMatchObject({
        code: "upstream_error",
        message: expect.stringMatching(/^MCP server "remote" broke off its answer to tools\/call: /),
      });
      expect(cut.record.attempts).toBe(1);
      const again = await call(tools, "r_echo", { text: "after" }, { fetch: ownFetch });
      expect(again.ok && again.output.content).toEqual([{ type: "text", text: "echo: after" }]);
      const initializes = own.requests.filter((r) => (r.body as { method?: string })?.method === "initialize");
      expect(initializes.length).toBe(2);
    } finally {
      await own.close();
    }
  });

  it("works with plain JSON responses too", async () => {
    const jsonServer = await startMcpServer({ json: true, pageSize: 100 });
    try {
      const jsonFetch = egressFor(jsonServer.url);
      const tools = await mcpServer(declare({ url: jsonServer.url }), deps({ fetch: jsonFetch })).tools();
      const echoed = await call(tools, "r_echo", { text: "json" }, { fetch: jsonFetch });
      expect(echoed.ok && echoed.output.content).toEqual([{ type: "text", text: "echo: json" }]);
    } finally {
      await jsonServer.close();
    }
  });
});

describe("mcpServer: result content", () => {
  it("keeps audio and embedded resources as they came; chat formats still read them as text", () => {
    const result = fromCallResult(
      {
        content: [
          { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
          { type: "resource", resource: { uri: "file:///logo.png", blob: "iVBORw0KGgo=" } },
          { type: "audio", data: 42 }, // malformed: dropped
          { type: "resource", resource: { text: "no uri" } }, // malformed: dropped
        ],
      },
      "remote",
    );
    expect(result.content).toEqual([
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
      { type: "resource", resource: { uri: "file:///logo.png", blob: "iVBORw0KGgo=" } },
    ]);
    expect(result.content.map(contentText)).toEqual(["[audio: audio/wav]", "# Notes", "[resource: file:///logo.png]"]);
  });
});

describe("mcpServer: definition changes and pinning", () => {
  it("refuses a tool whose definition changed since approval (list_changed in a response), until re-approved", async () => {
    const pins = new Map<string, string>();
    const source = mcpServer(declare(), deps({ pins: { get: (tool) => pins.get(tool) } }));
    const tools = await source.tools();
    for (const def of await source.definitions()) pins.set(def.tool, def.hash);
    const oldHash = pins.get("r_echo");
    expect((await call(tools, "r_echo", { text: "x" })).ok).toBe(true);
    expect((await call(tools, "r_bump", {})).ok).toBe(true); // the server changes echo and says list_changed
    const refused = await call(tools, "r_echo", { text: "x" });
    expect(!refused.ok && refused.error.code).toBe("tool_definition_changed");
    expect(!refused.ok && refused.error.message).toMatch(/changed since an admin approved it/);
    const fresh = (await source.definitions()).find((d) => d.tool === "r_echo");
    expect(fresh?.hash).not.toBe(oldHash);
    expect(fresh?.definition.description).toMatch(/\(bumped\)$/);
    pins.set("r_echo", fresh?.hash as string); // an admin re-approves
    expect((await call(tools, "r_echo", { text: "x" })).ok).toBe(true);
  });

  it("hears list_changed on the server's event stream while watching", async () => {
    const source = mcpServer(declare(), deps());
    const before = (await source.definitions()).find((d) => d.tool === "r_echo")?.hash;
    const stop = new AbortController();
    const watching = source.watch(stop.signal);
    await until(() => server.requests.some((r) => r.method === "GET"));
    server.changeEchoDescription("Echo, version 2");
    await until(async () => (await source.definitions()).find((d) => d.tool === "r_echo")?.hash !== before);
    stop.abort();
    await watching;
  });

  it("with pinning 'required', refuses tools not approved yet", async () => {
    const source = mcpServer(declare({ pinning: "required" }), deps({ pins: { get: () => undefined } }));
    const refused = await call(await source.tools(), "r_echo", { text: "x" });
    expect(!refused.ok && refused.error.message).toMatch(/has not been approved yet/);
  });
});
