import { env as workerEnv, exports } from "cloudflare:workers";
import { app } from "../../fixtures/app";
import { ADMIN_KEY, BASE } from "./requests";

export const REDIRECT_URI = "http://127.0.0.1:9999/callback";

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

/** Another TOOLGATE_CONFIG (or other vars) for the helpers' requests; undefined: the deployed Worker. */
let target: Record<string, unknown> | undefined;

/** Runs `flow` with the helpers' requests sent to the app with these env vars (another tenant). */
export async function withEnv<T>(env: Record<string, unknown>, flow: () => Promise<T>): Promise<T> {
  target = env;
  try {
    return await flow();
  } finally {
    target = undefined;
  }
}

/** One request to the Worker under test, as a browser or an OAuth client sends it (no key added). */
export function send(url: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(url.startsWith("http") ? url : `${BASE}${url}`, { redirect: "manual", ...init });
  return target
    ? Promise.resolve(app.request(request, undefined, { ...workerEnv, ...target }))
    : exports.default.fetch(request);
}

let registrations = 0;

/**
 * Dynamic client registration (RFC 7591) of a public client, each from an address of its own (as
 * separate clients are): registrations are rate-limited per address, and these tests are not about that.
 */
export async function register(origin = BASE, name = "Test client"): Promise<string> {
  const address = `198.18.${Math.floor(registrations / 250)}.${(registrations++ % 250) + 1}`;
  const res = await send(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": address },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface AuthorizeOptions {
  origin?: string;
  clientId: string;
  challenge?: string | null;
  method?: string;
  redirectUri?: string;
  scope?: string;
  resource?: string;
}

export function authorizeUrl(o: AuthorizeOptions): string {
  const origin = o.origin ?? BASE;
  const params = new URLSearchParams({
    response_type: "code",
    client_id: o.clientId,
    redirect_uri: o.redirectUri ?? REDIRECT_URI,
    state: "s1",
  });
  if (o.challenge !== null && o.challenge !== undefined)
    params.set("code_challenge", o.challenge), params.set("code_challenge_method", o.method ?? "S256");
  if (o.scope) params.set("scope", o.scope);
  params.set("resource", o.resource ?? `${origin}/mcp`);
  return `${origin}/authorize?${params}`;
}

/** GET /authorize → the console's consent page: the handle (from the fragment) and the browser's binding cookie. */
export async function startConsent(o: AuthorizeOptions): Promise<{ handle: string; cookie: string }> {
  const res = await send(authorizeUrl(o));
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const location = res.headers.get("location")!;
  const handle = decodeURIComponent(/#\/consent\/(.+)$/.exec(location)![1]!);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { handle, cookie };
}

/** The admin's decision on the consent page; answers where the browser goes back to. */
export async function decide(
  origin: string,
  consent: { handle: string; cookie: string },
  body: Record<string, unknown>,
  key = ADMIN_KEY,
): Promise<Response> {
  return send(`${origin}/v1/oauth/consents/${encodeURIComponent(consent.handle)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, cookie: consent.cookie, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

export async function tokenRequest(origin: string, params: Record<string, string>): Promise<Response> {
  return send(`${origin}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
}

/**
 * The whole flow: register, authorize with PKCE, an admin approves with `grant`, code for tokens, for
 * `resource` (default `<origin>/mcp`; a curated endpoint's is `<origin>/mcp/<name>`).
 */
export async function signIn(
  grant: Record<string, unknown> = {},
  origin = BASE,
  resource = `${origin}/mcp`,
): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await register(origin);
  const { verifier, challenge } = await pkce();
  const consent = await startConsent({ origin, clientId, challenge, scope: "call", resource });
  const decided = await decide(origin, consent, { decision: "approve", ...grant });
  if (decided.status !== 200) throw new Error(`decision answered ${decided.status}: ${await decided.text()}`);
  const { redirectTo } = (await decided.json()) as { redirectTo: string };
  return { clientId, tokens: await redeem(origin, clientId, verifier, redirectTo, resource) };
}

/** The approved consent's code (in `redirectTo`) redeemed with the PKCE verifier for tokens. */
export async function redeem(
  origin: string,
  clientId: string,
  verifier: string,
  redirectTo: string,
  resource = `${origin}/mcp`,
): Promise<Tokens> {
  const res = await tokenRequest(origin, {
    grant_type: "authorization_code",
    code: new URL(redirectTo).searchParams.get("code")!,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource,
  });
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Tokens;
}
