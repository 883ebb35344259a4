import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, BASE, CALL_KEY, json, request } from "../helpers/requests";
import {
  authorizeUrl,
  decide,
  pkce,
  register,
  REDIRECT_URI,
  send,
  signIn,
  startConsent,
  tokenRequest,
} from "../helpers/oauth";

const OTHER = "http://localhost:8787"; // the same Worker on another allowed origin: another issuer and resource

function openai(id: string, name = "add", args: unknown = { a: 1, b: 2 }) {
  return [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }];
}

async function mcp(token: string, body: unknown, session?: string): Promise<Response> {
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  if (session) headers["mcp-session-id"] = session;
  return request("/mcp", { key: token, body, headers });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

describe("OAuth discovery", () => {
  it("answers 401 on /mcp with a challenge naming the protected resource metadata", async () => {
    const res = await request("/mcp", { key: null, body: INITIALIZE });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="toolgate", resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", scope="call"`,
    );
  });

  it("publishes resource metadata (RFC 9728) and authorization server metadata (RFC 8414)", async () => {
    const resource = await json(await send("/.well-known/oauth-protected-resource/mcp"));
    expect(resource).toMatchObject({
      resource: `${BASE}/mcp`,
      authorization_servers: [BASE],
      scopes_supported: ["call"],
      bearer_methods_supported: ["header"],
    });
    const server = await json(await send("/.well-known/oauth-authorization-server"));
    expect(server).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/authorize`,
      token_endpoint: `${BASE}/token`,
      registration_endpoint: `${BASE}/register`,
      revocation_endpoint: `${BASE}/token`,
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["call", "admin"],
      client_id_metadata_document_supported: true,
    });
  });

  it("serves no OAuth on a host that is not the tenant's", async () => {
    const res = await send("http://evil.example/.well-known/oauth-authorization-server");
    expect(res.status).toBe(404);
  });
});

describe("OAuth sign-in and its grants", () => {
  it("issues a token an admin approved; its calls name the client and grant and are its own", async () => {
    const { tokens, clientId } = await signIn();
    expect(tokens).toMatchObject({ scope: "call", token_type: "bearer", expires_in: 900 });
    const res = await request("/v1/calls/openai", { key: tokens.access_token, body: openai("oauth-own-1") });
    expect(res.status).toBe(200);
    expect((await json(res)).calls[0].status).toBe("succeeded");
    const entry = await json(await request("/v1/calls/oauth-own-1", { key: tokens.access_token }));
    const grant = tokens.access_token.split(":")[1];
    expect(entry.key).toBe(`oauth:${clientId}#${grant}`);
    // A call-scope key does not see the grant's call; the grant does not see the key's.
    expect((await request("/v1/calls/oauth-own-1", { key: CALL_KEY })).status).toBe(404);
    await request("/v1/calls/openai", { key: CALL_KEY, body: openai("oauth-own-2") });
    expect((await request("/v1/calls/oauth-own-2", { key: tokens.access_token })).status).toBe(404);
    expect((await request("/v1/calls/oauth-own-1", { key: ADMIN_KEY })).status).toBe(200);
    const whoami = await json(await request("/v1/whoami", { key: tokens.access_token }));
    expect(whoami.key).toEqual({ name: `oauth:${clientId}#${grant}`, scopes: ["call"] });
  });

  it("serves MCP with the token, and keeps the session across a refresh", async () => {
    const { tokens, clientId } = await signIn();
    const init = await mcp(tokens.access_token, INITIALIZE);
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id")!;
    const refreshed = await tokenRequest(BASE, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const next = await json(refreshed);
    expect(next.access_token).not.toBe(tokens.access_token);
    const call = await mcp(
      next.access_token,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } },
      session,
    );
    expect(call.status).toBe(200);
    expect((await json(call)).result.structuredContent).toEqual({ sum: 5 });
  });

  it("lists and revokes grants for admins; a revoked grant's tokens answer 401", async () => {
    const { tokens } = await signIn();
    const grantId = tokens.access_token.split(":")[1];
    const listed = await json(await request("/v1/oauth/grants", { key: ADMIN_KEY }));
    expect(listed.grants).toContainEqual(
      expect.objectContaining({
        id: grantId,
        scope: ["call"],
        details: expect.objectContaining({ clientName: "Test client", approvedBy: "dev-admin" }),
      }),
    );
    expect((await request(`/v1/oauth/grants/${grantId}/revoke`, { key: ADMIN_KEY, method: "POST" })).status).toBe(200);
    const res = await request("/v1/tools", { key: tokens.access_token });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_token");
  });

  it("holds a grant to the tools, rate and end the admin chose", async () => {
    const { tokens } = await signIn({ tools: ["add"], ratePerMinute: 2 });
    const tools = await json(await request("/v1/tools/openai", { key: tokens.access_token }));
    expect(tools.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["add"]);
    const denied = await json(
      await request("/v1/calls/openai", {
        key: tokens.access_token,
        body: openai("oauth-echo-1", "echo", { text: "x" }),
      }),
    );
    expect(denied.calls[0]).toMatchObject({ status: "denied" });
    // The denied call spent nothing: two calls pass, the third is over the limit.
    for (const id of ["oauth-rate-1", "oauth-rate-2"])
      expect((await request("/v1/calls/openai", { key: tokens.access_token, body: openai(id) })).status).toBe(200);
    const over = await request("/v1/calls/openai", { key: tokens.access_token, body: openai("oauth-rate-3") });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("OAuth refusals", () => {
  it("refuses a grant past the end date its admin set", async () => {
    const { tokens } = await signIn({ expiresAt: Date.now() + 1_500 });
    expect((await request("/v1/tools", { key: tokens.access_token })).status).toBe(200);
    await expect
      .poll(async () => (await request("/v1/tools", { key: tokens.access_token })).status, {
        timeout: 5_000,
        interval: 100,
      })
      .toBe(401);
    expect((await json(await request("/v1/tools", { key: tokens.access_token }))).error.code).toBe("invalid_token");
  });

  it("refuses a token minted for another audience (the same Worker on another origin)", async () => {
    const { tokens } = await signIn({}, OTHER);
    const ok = await send(`${OTHER}/v1/tools`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(ok.status).toBe(200);
    const res = await request("/v1/tools", { key: tokens.access_token });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_token");
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // Nor is a code exchanged for another resource.
    const clientId = await register();
    const { verifier, challenge } = await pkce();
    const consent = await startConsent({ clientId, challenge });
    const code = new URL(
      (await json(await decide(BASE, consent, { decision: "approve" }))).redirectTo,
    ).searchParams.get("code")!;
    const wrong = await tokenRequest(BASE, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${OTHER}/mcp`,
    });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error).toBe("invalid_target");
  });

  it("refuses an expired access token", async () => {
    const { tokens } = await signIn();
    const [user, grant] = tokens.access_token.split(":");
    const { keys } = await env.OAUTH_KV.list({ prefix: `token:${user}:${grant}:` });
    expect(keys).toHaveLength(1);
    const record = (await env.OAUTH_KV.get(keys[0]!.name, { type: "json" })) as { expiresAt: number };
    await env.OAUTH_KV.put(keys[0]!.name, JSON.stringify({ ...record, expiresAt: Math.floor(Date.now() / 1000) - 1 }));
    const res = await request("/v1/tools", { key: tokens.access_token });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("invalid_token");
  });

  it("refuses a revoked access token, and a revoked refresh token refreshes nothing", async () => {
    const { tokens, clientId } = await signIn();
    expect((await request("/v1/tools", { key: tokens.access_token })).status).toBe(200);
    expect((await tokenRequest(BASE, { token: tokens.access_token, client_id: clientId })).status).toBe(200);
    expect((await request("/v1/tools", { key: tokens.access_token })).status).toBe(401);
    expect(
      (await tokenRequest(BASE, { token: tokens.refresh_token, token_type_hint: "refresh_token", client_id: clientId }))
        .status,
    ).toBe(200);
    const refresh = await tokenRequest(BASE, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect((await json(refresh)).error).toBe("invalid_grant");
  });

  it("refuses an authorization without PKCE, or with the plain method", async () => {
    const clientId = await register();
    const missing = await send(authorizeUrl({ clientId, challenge: null }));
    expect(missing.status).toBe(302);
    const to = new URL(missing.headers.get("location")!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
    expect(to.searchParams.get("error")).toBe("invalid_request");
    expect(to.searchParams.get("state")).toBe("s1");
    const plain = await send(authorizeUrl({ clientId, challenge: "a".repeat(43), method: "plain" }));
    expect(new URL(plain.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    // A code exchanged without its verifier, or with another one, is refused too.
    const approvedCode = async () => {
      const consent = await startConsent({ clientId, challenge: (await pkce()).challenge });
      const code = new URL(
        (await json(await decide(BASE, consent, { decision: "approve" }))).redirectTo,
      ).searchParams.get("code")!;
      return { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId };
    };
    const noVerifier = await tokenRequest(BASE, await approvedCode());
    expect(noVerifier.status).toBe(400);
    expect((await json(noVerifier)).error).toBe("invalid_request");
    const wrongVerifier = await tokenRequest(BASE, {
      ...(await approvedCode()),
      code_verifier: (await pkce()).verifier,
    });
    expect(wrongVerifier.status).toBe(400);
    expect((await json(wrongVerifier)).error).toBe("invalid_grant");
  });

  it("refuses a redirect URI the client did not register, without redirecting there", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const res = await send(authorizeUrl({ clientId, challenge, redirectUri: "http://127.0.0.1:9999/elsewhere" }));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toMatch(/redirect/i);
  });

  it("refuses a grant whose scope is too small, naming the scope to ask for", async () => {
    const { tokens } = await signIn({ scope: "call" });
    const res = await request("/v1/tenant", { key: tokens.access_token });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="admin", ` +
        `resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await json(res)).error.code).toBe("forbidden");
    // An admin grant reaches it.
    const admin = await signIn({ scope: "admin" });
    expect((await request("/v1/tenant", { key: admin.tokens.access_token })).status).toBe(200);
  });

  it("lets only an admin decide, only from the browser that started it, and once", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const consent = await startConsent({ clientId, challenge });
    const shown = await json(
      await request(`/v1/oauth/consents/${encodeURIComponent(consent.handle)}`, { key: ADMIN_KEY }),
    );
    expect(shown.consent).toMatchObject({
      clientId,
      clientName: "Test client",
      redirectUri: REDIRECT_URI,
      redirectHost: "127.0.0.1",
      redirectIsLoopback: true,
      scope: [],
    });
    expect(shown.tools).toContain("add");
    expect((await decide(BASE, consent, { decision: "approve" }, CALL_KEY)).status).toBe(403);
    expect((await decide(BASE, { ...consent, cookie: "" }, { decision: "approve" })).status).toBe(410);
    const denied = await decide(BASE, consent, { decision: "deny" });
    expect(denied.status).toBe(200);
    expect(new URL((await json(denied)).redirectTo).searchParams.get("error")).toBe("access_denied");
    expect((await decide(BASE, consent, { decision: "approve" })).status).toBe(410);
  });
});
