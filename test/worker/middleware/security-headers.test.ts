import { describe, expect, it } from "vitest";
import { ADMIN_KEY, json, request } from "../helpers/requests";
import { initializeRequest, post } from "../helpers/mcp";
import { authorizeUrl, pkce, REDIRECT_URI, register, send } from "../helpers/oauth";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const JSON_BODY = { "content-type": "application/json" };
const CALL = [{ id: "h1", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }];
const STREAM = "text/event-stream";
const PREFLIGHT = { origin: "http://localhost:5173", "access-control-request-method": "POST" };

/** The Worker's policy for what it answers: a document that loads nothing and is never framed. */
const POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Every answer the Worker serves: never sniffed, never framed. Its policy is the Worker's, or a
 * route's own (the OAuth library's consent redirect sends frame-ancestors 'none' itself).
 */
function expectHardened(res: Response, what: string): void {
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  const policy = res.headers.get("content-security-policy");
  expect(
    policy?.split(";").map((directive) => directive.trim()),
    what,
  ).toContain("frame-ancestors 'none'");
  if (!res.headers.get("location")?.includes("#/consent/")) expect(policy, what).toBe(POLICY);
}

describe("security headers on every answer of the Worker", () => {
  it("the API: answers, refusals, preflights, 404s, body limits and config errors", async () => {
    const answers: [string, Promise<Response>, number][] = [
      ["health", request("/healthz", { key: null }), 200],
      ["listing", request("/v1/tools/openai"), 200],
      ["a call", request("/v1/calls/openai", { body: CALL }), 200],
      ["no key", request("/v1/tools", { key: null }), 401],
      ["not admin", request("/v1/keys"), 403],
      ["bad body", request("/v1/calls/openai", { body: "{" }), 400],
      ["unknown record", request("/v1/calls/nobody-made-this"), 404],
      ["no route", request("/nowhere", { key: null }), 404],
      ["too large", request("/v1/calls/openai", { body: "x".repeat(1024 * 1024 + 1) }), 413],
      ["preflight", request("/v1/calls/openai", { method: "OPTIONS", key: null, headers: PREFLIGHT }), 204],
      ["event token", request("/v1/events/token", { method: "POST" }), 200],
      ["bad event token", request("/v1/events?token=nope", { key: null }), 401],
      ["config invalid", request("/healthz", { env: { TOOLGATE_CONFIG: "{" } }), 500],
    ];
    for (const [what, pending, status] of answers) {
      const res = await pending;
      expect(res.status, what).toBe(status);
      expectHardened(res, what);
    }
  });

  it("MCP: JSON-RPC answers, streams and refusals", async () => {
    const init = await post(initializeRequest());
    expect(init.status).toBe(200);
    expectHardened(init, "initialize");
    const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    const list = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { ...session, accept: STREAM });
    expect(list.headers.get("content-type")).toContain("text/event-stream");
    expectHardened(list, "tools/list as a stream");
    await list.body?.cancel();
    const unauthenticated = await request("/mcp", { key: null, body: initializeRequest() });
    expect(unauthenticated.status).toBe(401);
    expectHardened(unauthenticated, "MCP without a key");
    const rebound = await request("/mcp", { body: initializeRequest(), headers: { origin: "http://evil.example" } });
    expect(rebound.status).toBe(403);
    expectHardened(rebound, "MCP from an origin that is not the tenant's");
  });

  it("OAuth: the library's answers, /authorize's page and redirects (immutable ones too)", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const answers: [string, Promise<Response>, number][] = [
      ["server metadata", send("/.well-known/oauth-authorization-server"), 200],
      ["resource metadata", send("/.well-known/oauth-protected-resource/mcp"), 200],
      ["token preflight", send("/token", { method: "OPTIONS", headers: { origin: "https://client.example" } }), 204],
      ["no client", send("/token", { method: "POST", headers: FORM, body: "grant_type=authorization_code" }), 401],
      ["bad registration", send("/register", { method: "POST", headers: JSON_BODY, body: "{" }), 400],
      ["error page", send(authorizeUrl({ clientId, challenge, redirectUri: "http://127.0.0.1:9999/elsewhere" })), 400],
      // Without PKCE the client is sent back with Response.redirect(), whose headers are immutable.
      ["error redirect", send(authorizeUrl({ clientId, challenge: null })), 302],
      ["to the consent page", send(authorizeUrl({ clientId, challenge })), 302],
      ["another host", send("http://evil.example/.well-known/oauth-authorization-server"), 404],
      ["consent expired", request("/v1/oauth/consents/none", { key: ADMIN_KEY }), 410],
    ];
    for (const [what, pending, status] of answers) {
      const res = await pending;
      expect(res.status, what).toBe(status);
      expectHardened(res, what);
    }
    const registered = await send("/register", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ client_name: "h", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
    });
    expect(registered.status).toBe(201);
    expectHardened(registered, "registration");
    expect((await json(registered)).client_id).toBeTruthy();
  });
});
