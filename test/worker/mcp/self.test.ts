import { afterEach, describe, expect, it } from "vitest";
import { mcpServer } from "../../../src/adapters/mcp";
import { knownEras } from "../../../src/adapters/mcp/era";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import { FIXTURE_VARS, MCP_URL, mcpFetch } from "../helpers/mcp";

/**
 * toolgate's own MCP client (the remote MCP adapter, src/adapters/mcp/) against its own /mcp
 * (worker/mcp/), in each era: both read the protocol from src/mcp/, and here they meet on the wire.
 */

afterEach(() => void knownEras.delete(MCP_URL));

/** The adapter over /mcp, and every request it sends as the Worker receives it. */
function self() {
  const seen: { method: string; headers: Headers }[] = [];
  const inner = mcpFetch({ vars: FIXTURE_VARS });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = request.method === "POST" ? await request.clone().text() : "";
    const method = text ? ((JSON.parse(text) as { method?: string }).method ?? "(response)") : request.method;
    seen.push({ method, headers: request.headers });
    return inner(request);
  };
  const source = mcpServer({ name: "self", url: MCP_URL, prefix: "self_" }, { fetch, secrets: {} });
  const call = async (tools: Tool[], name: string, args: unknown) => {
    const options = { registry: createRegistry(tools), secrets: {}, fetch };
    const result = await executeCall({ id: `c_${crypto.randomUUID()}`, name, arguments: args }, options);
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return result.output;
  };
  return { source, seen, call };
}

describe("toolgate's client on toolgate's /mcp", () => {
  it("finds it modern by server/discover and speaks 2026-07-28: envelope and Mcp-* headers agree", async () => {
    const { source, seen, call } = self();
    const tools = await source.tools();
    expect(knownEras.get(MCP_URL)).toMatchObject({ kind: "modern", version: "2026-07-28" });
    expect((await call(tools, "self_add", { a: 2, b: 3 })).structured).toEqual({ sum: 5 });
    // A value that is not plain ASCII goes Base64 in its header; the server decodes and compares it.
    const mirrored = await call(tools, "self_test_custom_header", { region: "Grüße" });
    expect(mirrored.structured).toEqual({ received: { region: "Grüße" } });
    expect(seen[0]!.method).toBe("server/discover");
    expect(seen.map((request) => request.method)).not.toContain("initialize");
    for (const request of seen) expect(request.headers.get("mcp-protocol-version")).toBe("2026-07-28");
  });

  it("known as legacy, opens a 2025-11-25 session and calls in it", async () => {
    knownEras.set(MCP_URL, { kind: "legacy" });
    const { source, seen, call } = self();
    const tools = await source.tools();
    expect((await call(tools, "self_add", { a: 2, b: 3 })).structured).toEqual({ sum: 5 });
    expect(seen.map((request) => request.method).slice(0, 2)).toEqual(["initialize", "notifications/initialized"]);
    const called = seen.find((request) => request.method === "tools/call")!;
    expect(called.headers.get("mcp-protocol-version")).toBe("2025-11-25");
    expect(called.headers.get("mcp-session-id")).toBeTruthy();
  });
});
