import type { Client as V2Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import {
  connect,
  connectV2,
  FIXTURE_VARS,
  MCP_URL,
  mcpFetch,
  MODERN,
  modernPost,
  type VersionMode,
} from "../helpers/mcp";

/**
 * Both eras on one endpoint, driven by the official clients: the v2 client (@modelcontextprotocol/client)
 * in each of its negotiation modes and the v1 client (@modelcontextprotocol/sdk), inside workerd.
 */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function v2(mode: VersionMode) {
  const client = await connectV2(mode, { vars: FIXTURE_VARS });
  open.push(client);
  return client;
}

/** Every request the client sends, as the Worker receives it. */
function recorder() {
  const seen: { method: string; headers: Headers; body: any }[] = [];
  const inner = mcpFetch({ vars: FIXTURE_VARS });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = request.method === "POST" ? await request.clone().text() : "";
    seen.push({ method: request.method, headers: request.headers, body: text ? JSON.parse(text) : undefined });
    return inner(request);
  };
  return { seen, fetch };
}

async function progressOf(client: V2Client) {
  const progress: { progress: number; total?: number }[] = [];
  const result = await client.callTool(
    { name: "test_tool_with_progress", arguments: {} },
    { onprogress: (p) => progress.push(p) },
  );
  return { result, progress: progress.map(({ progress, total }) => [progress, total]) };
}

describe("the v2 client in each negotiation mode", () => {
  it.each([
    { label: "auto", mode: "auto" as VersionMode, version: MODERN },
    { label: "pinned to 2026-07-28", mode: { pin: MODERN } as VersionMode, version: MODERN },
    { label: "legacy", mode: "legacy" as VersionMode, version: "2025-11-25" },
  ])("$label: connects, lists and calls tools with progress (speaks $version)", async ({ mode, version }) => {
    const client = await v2(mode);
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(client.getServerVersion()).toMatchObject({ name: "toolgate" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false }, logging: {} });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["add", "test_tool_with_progress"]));
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    const { result, progress } = await progressOf(client);
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([
      [0, 100],
      [50, 100],
      [100, 100],
    ]);
  });

  it("auto and pinned: no initialize, no session; every request carries its version, capabilities and the standard headers", async () => {
    const { seen, fetch } = recorder();
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "rec", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch }));
    open.push(client);
    await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    const methods = seen.map((request) => request.body?.method);
    expect(methods[0]).toBe("server/discover");
    expect(methods).toContain("tools/call");
    expect(methods).not.toContain("initialize");
    for (const request of seen.filter((r) => r.body?.id !== undefined)) {
      expect(request.headers.get("mcp-session-id")).toBeNull();
      expect(request.headers.get("mcp-protocol-version")).toBe(MODERN);
      expect(request.headers.get("mcp-method")).toBe(request.body.method);
      expect(request.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(MODERN);
    }
    expect(seen.find((r) => r.body?.method === "tools/call")!.headers.get("mcp-name")).toBe("add");
  });

  it("legacy: the 2025 handshake and a session, byte for byte what a 2025 client sends", async () => {
    const { seen, fetch } = recorder();
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: "rec", version: "1" }, { versionNegotiation: { mode: "legacy" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch }));
    open.push(client);
    await client.listTools();
    expect(seen[0]!.body.method).toBe("initialize");
    const later = seen.filter((r) => r.body?.method === "tools/list")[0]!;
    expect(later.headers.get("mcp-session-id")).toMatch(/^[0-9a-z]+\.[\w-]{22}\.[\w-]{22}$/);
    expect(later.headers.get("mcp-protocol-version")).toBe("2025-11-25");
  });

  it("legacy pinned to 2024-11-05 (the oldest revision the SDKs and toolgate's own client speak): served in it", async () => {
    const { seen, fetch } = recorder();
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const options = { versionNegotiation: { mode: "legacy" as const }, supportedProtocolVersions: ["2024-11-05"] };
    const client = new Client({ name: "rec", version: "1" }, options);
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch }));
    open.push(client);
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(seen[0]!.body.params.protocolVersion).toBe("2024-11-05");
    const call = seen.find((r) => r.body?.method === "tools/call")!;
    expect(call.headers.get("mcp-protocol-version")).toBe("2024-11-05");
    expect(call.headers.get("mcp-session-id")).toBeTruthy();
  });
});

describe("the v1 client", () => {
  it("still speaks 2025-11-25 with a session, lists and calls tools", async () => {
    const { client, transport } = await connect({ vars: FIXTURE_VARS });
    open.push(client);
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(transport.sessionId).toBeTruthy();
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
  });
});

describe("server/discover", () => {
  it("lists every revision served, the capabilities, and identifies the server, with caching hints", async () => {
    const res = await modernPost("server/discover");
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const { result } = (await res.json()) as any;
    expect(result).toEqual({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
      capabilities: { tools: { listChanged: false }, logging: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
      ttlMs: 300_000,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolgate", title: "toolgate", version: "0.1.0" } },
    });
  });
});
