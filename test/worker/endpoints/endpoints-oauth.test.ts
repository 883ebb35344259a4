import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { mcpFetch, post } from "../helpers/mcp";
import { decide, REDIRECT_URI, send, signIn, withEnv } from "../helpers/oauth";
import { ADMIN_KEY, BASE, json, request } from "../helpers/requests";

/** Two curated endpoints; "math" is signed in to with OAuth. */
const CONFIG = {
  ...DEMO_CONFIG,
  name: "endpoints-oauth",
  endpoints: { math: { tools: ["tag:math"] }, text: { tools: ["echo"] } },
};
const vars = { TOOLGATE_CONFIG: JSON.stringify(CONFIG) };
const MATH = `${BASE}/mcp/math`;

/** The client application's side of OAuth for the v1 SDK client: kept in memory. */
class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrls: URL[] = [];
  readonly redirectUrl = REDIRECT_URI;
  readonly clientMetadata = {
    client_name: "SDK endpoint client",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void this.authorizationUrls.push(url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The SDK client with OAuth at `url`, its requests from an address of their own (registration is rate-limited). */
function transport(url: string, provider: Provider) {
  const fetch = mcpFetch({ key: null, vars, headers: { "cf-connecting-ip": "198.19.7.1" } });
  return new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch });
}
const newClient = () =>
  new Client({ name: "endpoint-oauth", version: "1" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });

describe("a curated endpoint's OAuth", () => {
  it("signs the official SDK client in through the endpoint's own metadata", async () => {
    const provider = new Provider();
    const first = newClient();
    await expect(first.connect(transport(MATH, provider))).rejects.toThrow(/Unauthorized/);
    const authorize = provider.authorizationUrls[0]!;
    expect(authorize.searchParams.get("resource")).toBe(MATH);
    // The admin approves on the consent page; the browser comes back to the client with a code.
    const started = await withEnv(vars, () => send(authorize.href));
    expect(started.status).toBe(302);
    const handle = decodeURIComponent(/#\/consent\/(.+)$/.exec(started.headers.get("location")!)![1]!);
    const cookie = started.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    // The consent page names the endpoint, and offers only its tools for the grant's allow-list.
    const page = `${BASE}/v1/oauth/consents/${encodeURIComponent(handle)}`;
    const shown = await withEnv(vars, () => send(page, { headers: { authorization: `Bearer ${ADMIN_KEY}`, cookie } }));
    expect(await json(shown)).toMatchObject({ server: { resource: MATH, endpoint: "math" }, tools: ["add"] });
    const outside = await withEnv(vars, () =>
      decide(BASE, { handle, cookie }, { decision: "approve", tools: ["add", "echo"] }),
    );
    expect(outside.status).toBe(400);
    expect((await json(outside)).error.message).toContain("not yours to grant: echo");
    const decided = await withEnv(vars, () => decide(BASE, { handle, cookie }, { decision: "approve" }));
    const code = new URL(((await json(decided)) as { redirectTo: string }).redirectTo).searchParams.get("code")!;
    await transport(MATH, provider).finishAuth(code);

    const signedIn = newClient();
    open.push(signedIn);
    await signedIn.connect(transport(MATH, provider));
    expect((await signedIn.listTools()).tools.map((tool) => tool.name)).toEqual(["add"]);
    expect((await signedIn.callTool({ name: "add", arguments: { a: 4, b: 5 } })).structuredContent).toEqual({ sum: 9 });
  });

  it("refuses a token issued for one endpoint at the others, at /mcp and at the HTTP API", async () => {
    const { tokens } = await withEnv(vars, () => signIn({}, BASE, MATH));
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const at = (url: string) => post(ping, {}, { vars, url, key: tokens.access_token });
    // Accepted where it was issued for: the session opens (ping needs one: 400, not 401).
    expect((await at(MATH)).status).toBe(400);
    for (const url of [`${BASE}/mcp/text`, `${BASE}/mcp`]) {
      const refused = await at(url);
      expect(refused.status, url).toBe(401);
      expect(await json(refused)).toMatchObject({ error: { code: "invalid_token" } });
    }
    const api = await request("/v1/tools", { key: tokens.access_token, env: vars });
    expect(api.status).toBe(401);
    // And /mcp's token is refused at the endpoint.
    const whole = await withEnv(vars, () => signIn());
    const refused = await post(ping, {}, { vars, url: MATH, key: whole.tokens.access_token });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("oauth-protected-resource/mcp/math");
  });
});
