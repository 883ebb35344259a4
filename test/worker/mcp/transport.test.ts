import { describe, expect, it } from "vitest";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { sessionCallPrefix } from "../../../worker/mcp/v2025/call-ids";
import { checkSessionId } from "../../../worker/mcp/v2025/session";
import { ADMIN_KEY, CALL_KEY_HASH, json, request } from "../helpers/requests";
import { connect, initializeRequest, MCP_URL, mcpFetch, openSession, post } from "../helpers/mcp";

const ping = (id: number | string = 1) => ({ jsonrpc: "2.0", id, method: "ping" });

describe("MCP transport: auth and sessions", () => {
  it("refuses requests without a valid key (401 with a Bearer challenge)", async () => {
    const none = await post(initializeRequest(), {}, { key: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await post(initializeRequest(), {}, { key: "wrong" })).status).toBe(401);
    await expect(connect({ key: null })).rejects.toThrow();
  });

  it("gives each session a fresh random id bound to the key that opened it", async () => {
    const a = await openSession();
    const b = await openSession();
    expect(a["mcp-session-id"]).not.toBe(b["mcp-session-id"]);
    expect((await post(ping(), a)).status).toBe(200);
    // The same id with another valid key of the tenant is not a session.
    const other = await post(ping(), a, { key: ADMIN_KEY });
    expect(other.status).toBe(404);
    expect(((await other.json()) as any).error.code).toBe(-32001);
    // A tag that does not match its random part is refused too.
    const [issued, random] = a["mcp-session-id"]!.split(".");
    expect((await post(ping(), { ...a, "mcp-session-id": `${issued}.${random}.${"A".repeat(22)}` })).status).toBe(404);
  });

  it("requires the session header after initialize (400) and ends a session on DELETE (then 404)", async () => {
    const missing = await post(ping(), { "mcp-protocol-version": "2025-11-25" });
    expect(missing.status).toBe(400);
    const session = await openSession();
    const deleted = await mcpFetch()(MCP_URL, { method: "DELETE", headers: session });
    expect(deleted.status).toBe(200);
    expect((await post(ping(), session)).status).toBe(404);
  });

  it("answers GET with 405 (no server-initiated stream)", async () => {
    const session = await openSession();
    const res = await mcpFetch()(MCP_URL, { method: "GET", headers: { ...session, accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, DELETE");
  });
});

describe("MCP transport: Host and Origin (DNS rebinding)", () => {
  it("refuses a foreign Host or Origin before looking at the key", async () => {
    const host = await post(initializeRequest(), { host: "evil.example.com" }, { key: null });
    expect(host.status).toBe(403);
    const origin = await post(initializeRequest(), { origin: "http://evil.example.com" });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as any).error.message).toContain("evil.example.com");
  });

  it("accepts loopback names, the tenant's console origins and its configured hosts", async () => {
    expect((await post(initializeRequest(), { host: "localhost:8787", origin: "http://localhost:8787" })).status).toBe(
      200,
    );
    expect((await post(initializeRequest(), { origin: "http://localhost:5173" })).status).toBe(200);
    const vars = { TOOLGATE_CONFIG: JSON.stringify({ ...DEMO_CONFIG, hosts: ["tools.example.com"] }) };
    const custom = await post(
      initializeRequest(),
      { host: "tools.example.com", origin: "https://tools.example.com" },
      { vars },
    );
    expect(custom.status).toBe(200);
    expect((await post(initializeRequest(), { host: "other.example.com" }, { vars })).status).toBe(403);
  });

  it("accepts the tenant's own workers.dev name without configuration, and no other Worker's", async () => {
    const tenant = DEMO_CONFIG.name;
    expect((await post(initializeRequest(), { host: `toolgate-${tenant}.acct-1.workers.dev` })).status).toBe(200);
    expect((await post(initializeRequest(), { host: `toolgate-other.acct-1.workers.dev` })).status).toBe(403);
    expect((await post(initializeRequest(), { host: `toolgate-${tenant}.evil.example` })).status).toBe(403);
    expect((await post(initializeRequest(), { host: `toolgate-${tenant}.a.b.workers.dev` })).status).toBe(403);
  });
});

describe("MCP transport: messages and versions", () => {
  it("answers initialize with the client's version when supported, else the newest", async () => {
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      const res = await post(initializeRequest(version));
      expect(((await res.json()) as any).result.protocolVersion).toBe(version);
    }
    const future = await post(initializeRequest("2099-01-01"));
    expect(((await future.json()) as any).result.protocolVersion).toBe("2025-11-25");
  });

  it("refuses an unsupported MCP-Protocol-Version header (400)", async () => {
    const session = await openSession();
    const res = await post(ping(), { ...session, "mcp-protocol-version": "1999-01-01" });
    expect(res.status).toBe(400);
  });

  it("takes JSON-RPC batches only under 2025-03-26", async () => {
    const old = await openSession({}, "2025-03-26");
    const res = await post([ping(1), { jsonrpc: "2.0", method: "notifications/initialized" }, ping("two")], old);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "two", result: {} },
    ]);
    const current = await openSession();
    const refused = await post([ping(1), ping(2)], current);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.code).toBe(-32600);
    // 2024-11-05 came before batches.
    const oldest = await post([ping(1), ping(2)], await openSession({}, "2024-11-05"));
    expect(oldest.status).toBe(400);
    expect(((await oldest.json()) as any).error.code).toBe(-32600);
  });

  it("refuses a batch over limits.maxCallsPerBatch (128, as POST /v1/calls) whole: none of it runs", async () => {
    const session = await openSession({}, "2025-03-26");
    const keyHash = Uint8Array.from(CALL_KEY_HASH.match(/../g)!, (byte) => parseInt(byte, 16));
    const { ref } = (await checkSessionId(session["mcp-session-id"]!, keyHash))!;
    const adds = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => ({
        jsonrpc: "2.0",
        id: from + i,
        method: "tools/call",
        params: { name: "add", arguments: { a: i, b: 1 } },
      }));
    const refused = await post(adds(129, 1), session);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request: 129 JSON-RPC messages in one request; the limit is 128.",
        data: { limit: 128 },
      },
    });
    const listed = () => request(`/v1/calls?callId=${sessionCallPrefix(ref)}&limit=200`);
    const recorded = async () => (await json(await listed())).calls.length;
    expect(await recorded()).toBe(0);
    // At the limit, every message runs.
    const taken = await post(adds(128, 1000), session);
    expect(taken.status).toBe(200);
    const sums = ((await taken.json()) as any[]).map((reply) => reply.result.structuredContent.sum);
    expect(sums).toEqual(Array.from({ length: 128 }, (_, i) => i + 1));
    expect(await recorded()).toBe(128);
  });

  it("answers 202 to notifications alone, and JSON-RPC errors to what it cannot take", async () => {
    const session = await openSession();
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202);
    const unknown: any = await (await post({ jsonrpc: "2.0", id: 5, method: "resources/list" }, session)).json();
    expect(unknown.error.code).toBe(-32601);
    const bad = await post("{not json", session);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32700);
    const level: any = await (
      await post({ jsonrpc: "2.0", id: 6, method: "logging/setLevel", params: { level: "loud" } }, session)
    ).json();
    expect(level.error.code).toBe(-32602);
    expect((await post(ping(), { ...session, "content-type": "text/plain" })).status).toBe(415);
    expect((await post(ping(), { ...session, accept: "text/html" })).status).toBe(406);
  });
});
