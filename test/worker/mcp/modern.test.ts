import { describe, expect, it } from "vitest";
import { FIXTURE_VARS, MODERN, modernMeta, modernPost, post } from "../helpers/mcp";

/**
 * MCP 2026-07-28 on the wire, by hand: what the spec (basic/versioning, transports/streamable-http,
 * basic/index) requires of a server for requests a conformant client would not send.
 */

const fixtures = { target: { vars: FIXTURE_VARS } };
const body = async (res: Response): Promise<any> => res.json();

/** The data lines of an SSE body (or the one JSON body), parsed. */
async function messages(res: Response): Promise<any[]> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

describe("MCP 2026-07-28: the request envelope", () => {
  it("refuses a request of that revision without its _meta, or without its capabilities: 400, -32602", async () => {
    const bare = await post(
      { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} },
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
    );
    expect(bare.status).toBe(400);
    expect(await body(bare)).toMatchObject({ id: 7, error: { code: -32602 } });
    const meta = modernMeta();
    delete (meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"];
    const noCapabilities = await post(
      { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: meta } },
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
    );
    expect(noCapabilities.status).toBe(400);
    expect(await body(noCapabilities)).toMatchObject({ id: 8, error: { code: -32602 } });
    const badLevel = await modernPost("tools/list", {}, { meta: { "io.modelcontextprotocol/logLevel": "loud" } });
    expect(badLevel.status).toBe(400);
  });

  it("serves a request without clientInfo (a SHOULD)", async () => {
    const meta = modernMeta();
    delete (meta as Record<string, unknown>)["io.modelcontextprotocol/clientInfo"];
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
      { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
    );
    expect(res.status).toBe(200);
  });

  it("answers a revision it does not serve with 400 and UnsupportedProtocolVersion (-32022) listing what it serves", async () => {
    const res = await modernPost(
      "tools/list",
      {},
      {
        id: 9,
        headers: { "mcp-protocol-version": "2099-01-01" },
        meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
      },
    );
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: {
          supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
          requested: "2099-01-01",
        },
      },
    });
    // A legacy client's unknown header gets the same list.
    const legacy: any = await body(
      await post(
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { "mcp-protocol-version": "1999-01-01", "mcp-session-id": "x" },
      ),
    );
    expect(legacy.error).toMatchObject({ code: -32022, data: { requested: "1999-01-01" } });
  });

  it("issues no session and ignores one sent", async () => {
    const res = await modernPost("tools/list", {}, { headers: { "mcp-session-id": "not-a-session" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });
});

describe("MCP 2026-07-28: headers that mirror the body (-32020)", () => {
  const refused = async (res: Response) => {
    expect(res.status).toBe(400);
    return (await body(res)).error.code;
  };

  it("refuses a missing or disagreeing MCP-Protocol-Version, Mcp-Method or Mcp-Name", async () => {
    expect(
      await refused(await modernPost("tools/list", {}, { headers: { "mcp-protocol-version": "2025-11-25" } })),
    ).toBe(-32020);
    const noVersion = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta() } },
      { "mcp-method": "tools/list" },
    );
    expect(await refused(noVersion)).toBe(-32020);
    const noMethod = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta() } },
      { "mcp-protocol-version": MODERN },
    );
    expect(await refused(noMethod)).toBe(-32020);
    expect(await refused(await modernPost("tools/list", {}, { headers: { "mcp-method": "TOOLS/LIST" } }))).toBe(-32020);
    const args = { name: "add", arguments: { a: 1, b: 2 } };
    expect(await refused(await modernPost("tools/call", args, { headers: { "mcp-name": "echo" } }))).toBe(-32020);
    const noName = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...args, _meta: modernMeta() } },
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" },
    );
    expect(await refused(noName)).toBe(-32020);
  });

  it("reads Mcp-Name without surrounding whitespace and decodes its Base64 form", async () => {
    const args = { name: "add", arguments: { a: 1, b: 2 } };
    expect((await modernPost("tools/call", args, { headers: { "mcp-name": "  add  " } })).status).toBe(200);
    expect(
      (await modernPost("tools/call", args, { headers: { "mcp-name": `=?base64?${btoa("add")}?=` } })).status,
    ).toBe(200);
    expect((await modernPost("tools/call", args, { headers: { "mcp-name": "=?base64?YWR!?=" } })).status).toBe(400);
  });

  it("checks a tool's x-mcp-header arguments against their Mcp-Param headers", async () => {
    const call = (region: string, headers: Record<string, string>) =>
      modernPost("tools/call", { name: "test_custom_header", arguments: { region } }, { headers, ...fixtures });
    const ok = await call("us-west1", { "mcp-param-region": "us-west1" });
    expect(ok.status).toBe(200);
    expect((await body(ok)).result.structuredContent).toEqual({ received: { region: "us-west1" } });
    expect(
      (
        await call("Grüße", {
          "mcp-param-region": `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode("Grüße")))}?=`,
        })
      ).status,
    ).toBe(200);
    const missing = await call("us-west1", {});
    expect(missing.status).toBe(400);
    expect((await body(missing)).error).toMatchObject({
      code: -32020,
      message: expect.stringContaining("Mcp-Param-Region"),
    });
    expect((await call("us-west1", { "mcp-param-region": "eu-west1" })).status).toBe(400);
    expect((await call("us-west1", { "mcp-param-region": "=?base64?SGVsbG8?=" })).status).toBe(400);
  });
});

describe("MCP 2026-07-28: methods", () => {
  it("answers what the revision removed, and unknown methods, with 404 and -32601", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/list", "no/such"]) {
      const res = await modernPost(method, {}, { id: method });
      expect(res.status, method).toBe(404);
      expect(await body(res), method).toMatchObject({ id: method, error: { code: -32601 } });
    }
  });

  it("refuses an initialize that names a 2026 revision only in its header (-32020)", async () => {
    const res = await post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { "mcp-protocol-version": MODERN },
    );
    expect(res.status).toBe(400);
    expect((await body(res)).error.code).toBe(-32020);
  });

  it("answers a notification with 202 and a batch carrying 2026 requests with 400", async () => {
    const note = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { "mcp-protocol-version": MODERN, "mcp-method": "notifications/cancelled" },
    );
    expect(note.status).toBe(202);
    const batch = await post([{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: modernMeta() } }], {
      "mcp-protocol-version": MODERN,
    });
    expect(batch.status).toBe(400);
    expect((await body(batch)).error.code).toBe(-32600);
  });

  it("gives every result its resultType and the server's identity; tools/list its caching hints; a tool's failure stays in-band", async () => {
    const list = (await body(await modernPost("tools/list"))).result;
    expect(list).toMatchObject({
      resultType: "complete",
      ttlMs: 60_000,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolgate" } },
    });
    const call = await modernPost("tools/call", { name: "add", arguments: { a: 2, b: 3 } });
    expect((await body(call)).result).toMatchObject({
      resultType: "complete",
      structuredContent: { sum: 5 },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolgate" } },
    });
    const unknown = await modernPost("tools/call", { name: "nope", arguments: {} });
    expect(unknown.status).toBe(200);
    expect((await body(unknown)).error.code).toBe(-32602);
  });
});

describe("MCP 2026-07-28: logs and progress follow each request's _meta", () => {
  it("sends a tool's logs only to a request that set a logLevel, at or above it", async () => {
    const quiet = await messages(
      await modernPost("tools/call", { name: "test_logging_tool", arguments: {} }, fixtures),
    );
    expect(quiet.filter((m) => m.method === "notifications/message")).toEqual([]);
    const loud = await messages(
      await modernPost(
        "tools/call",
        { name: "test_logging_tool", arguments: {} },
        { ...fixtures, meta: { "io.modelcontextprotocol/logLevel": "warning" } },
      ),
    );
    expect(loud.filter((m) => m.method === "notifications/message").map((m) => m.params.level)).toEqual([
      "warning",
      "error",
    ]);
    expect(loud.at(-1).result.resultType).toBe("complete");
  });

  it("streams notifications/progress for the request's progressToken before its result", async () => {
    const res = await modernPost(
      "tools/call",
      { name: "test_tool_with_progress", arguments: {} },
      { ...fixtures, meta: { progressToken: "p-1" } },
    );
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const all = await messages(res);
    expect(
      all.filter((m) => m.method === "notifications/progress").map((m) => [m.params.progressToken, m.params.progress]),
    ).toEqual([
      ["p-1", 0],
      ["p-1", 50],
      ["p-1", 100],
    ]);
    expect(all.at(-1).result.content[0].text).toBe("Progress test completed.");
  });
});
