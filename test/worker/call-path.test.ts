import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { takesCallPath } from "../../worker/call-path";
import { app } from "../fixtures/app";
import { BASE, CALL_KEY } from "./helpers/requests";

const CALL = [{ id: "cp1", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }];
const RPC = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
const MCP_ACCEPT = { accept: "application/json, text/event-stream" };

interface Case {
  what: string;
  /** The call route's path; the same route through the app's chain is this path with a trailing slash. */
  path: string;
  headers?: Record<string, string>;
  body: string;
  /** Another tenant configuration (through app.request), else the deployed Worker. */
  vars?: Record<string, string>;
  url?: string;
}

/** One request, with a fixed request id so both paths' answers may be compared whole. */
function send(c: Case, path: string): [Request, Promise<Response>] {
  const headers = { "content-type": "application/json", "x-request-id": "same-id", ...c.headers };
  const request = new Request(`${c.url ?? BASE}${path}`, { method: "POST", headers, body: c.body });
  const answer = c.vars ? app.fetch(request.clone(), { ...env, ...c.vars }) : exports.default.fetch(request.clone());
  return [request, Promise.resolve(answer)];
}

async function seen(response: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  return { status: response.status, headers: [...response.headers].sort(), body: await response.text() };
}

const KEY = { authorization: `Bearer ${CALL_KEY}` };

const CASES: Case[] = [
  { what: "/mcp without a key", path: "/mcp", body: JSON.stringify(RPC), headers: MCP_ACCEPT },
  { what: "/mcp with a wrong key", path: "/mcp", body: "{}", headers: { authorization: "Bearer nope" } },
  { what: "/mcp from a host not allowed, no key", path: "/mcp", body: "{}", url: "http://evil.example" },
  { what: "/mcp body too large, no key", path: "/mcp", body: "x".repeat(1024 * 1024 + 1) },
  { what: "/mcp not JSON by type", path: "/mcp", body: "{}", headers: { ...KEY, "content-type": "text/plain" } },
  { what: "/mcp not JSON", path: "/mcp", body: "{", headers: { ...KEY, ...MCP_ACCEPT } },
  { what: "/mcp a bad config", path: "/mcp", body: "{}", headers: KEY, vars: { TOOLGATE_CONFIG: "{" } },
  { what: "/v1/calls without a key", path: "/v1/calls/openai", body: JSON.stringify(CALL) },
  { what: "/v1/calls body too large", path: "/v1/calls/openai", body: "x".repeat(1024 * 1024 + 1), headers: KEY },
  { what: "/v1/calls not JSON", path: "/v1/calls/openai", body: "{", headers: KEY },
  { what: "/v1/calls no calls", path: "/v1/calls/openai", body: "[]", headers: KEY },
  { what: "/v1/calls unknown format", path: "/v1/calls/nope", body: JSON.stringify(CALL), headers: KEY },
  { what: "/v1/calls unknown shape", path: "/v1/calls", body: JSON.stringify({ no: 1 }), headers: KEY },
  {
    what: "/v1/calls a bad config",
    path: "/v1/calls/openai",
    body: "[]",
    headers: KEY,
    vars: { TOOLGATE_CONFIG: "{" },
  },
];

describe("the call path (worker/call-path.ts)", () => {
  it("takes only a POST to a call route without an Origin", () => {
    const takes = (path: string, init: RequestInit = { method: "POST", body: "{}" }) =>
      takesCallPath(new Request(`${BASE}${path}`, init));
    for (const path of ["/mcp", "/v1/calls", "/v1/calls/openai", "/v1/calls/openai?x=1"])
      expect(takes(path), path).toBe(true);
    for (const path of ["/mcp/", "/v1/calls/", "/v1/calls/x/cancel", "/v1/callsx", "/mcpx", "/healthz"]) {
      expect(takes(path), path).toBe(false);
    }
    expect(takes("/mcp", { method: "GET" })).toBe(false);
    expect(takes("/mcp", { method: "POST", headers: { origin: "http://localhost:5173" } })).toBe(false);
  });

  it("answers refusals and errors exactly as the app's middleware chain does", async () => {
    for (const c of CASES) {
      const [straight, fromPath] = send(c, c.path);
      const [chained, fromChain] = send(c, `${c.path}/`);
      expect(takesCallPath(straight), c.what).toBe(true);
      expect(takesCallPath(chained), c.what).toBe(false);
      const [a, b] = [await seen(await fromPath), await seen(await fromChain)];
      expect(a.status, c.what).toBeGreaterThanOrEqual(400);
      expect(a, c.what).toEqual(b);
    }
  });

  it("answers a call with the chain's status and headers", async () => {
    const call = (id: string): Case => ({
      what: "a call",
      path: "/v1/calls/openai",
      body: JSON.stringify([{ ...CALL[0], id }]),
      headers: KEY,
    });
    const a = await send(call("cp-straight"), "/v1/calls/openai")[1];
    const b = await send(call("cp-chained"), "/v1/calls/openai/")[1];
    expect(a.status).toBe(200);
    expect([...a.headers].filter(([name]) => name !== "content-length").sort()).toEqual(
      [...b.headers].filter(([name]) => name !== "content-length").sort(),
    );
    const statuses = [a, b].map(async (r) => ((await r.json()) as { calls: { status: string }[] }).calls[0]!.status);
    expect(await Promise.all(statuses)).toEqual(["succeeded", "succeeded"]);
  });
});
