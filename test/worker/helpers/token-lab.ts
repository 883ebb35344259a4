import { inject } from "vitest";

/**
 * The token lab (test/servers/token-lab.ts), as the workerd tests drive it: key sets and tokens per
 * name, so every test has its own. Times are seconds since the epoch, as JWT claims are.
 */
export const tokenLab = inject("tokenLab");

/** A name no other test uses: each key set and issuer is its own. */
export const labName = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

export const jwksUri = (set: string) => `${tokenLab}/sets/${set}/jwks`;
/** The issuer URL of the lab's scripted OpenID provider of this name (its keys: the set of the same name). */
export const issuerUrl = (name: string) => `${tokenLab}/issuers/${name}`;

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${tokenLab}${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`token lab ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export interface SignOptions {
  header?: Record<string, unknown>;
  /** "forged": signed with a key the set does not publish, under its current kid. */
  key?: "current" | "forged";
  /** "none": unsigned; "hs256-public": HMAC keyed with the set's public key. */
  mode?: "signed" | "none" | "hs256-public";
}

/** A token over `claims`, signed by the set's current key (made on first use, RS256). */
export async function signToken(set: string, claims: Record<string, unknown>, options: SignOptions = {}) {
  return (await post<{ token: string }>(`/sets/${set}/sign`, { claims, ...options })).token;
}

/** A new current key for the set (its kid); the old ones stay published only if `keep`. */
export async function rotateKeys(set: string, options: { alg?: string; keep?: boolean } = {}) {
  return (await post<{ kid: string }>(`/sets/${set}/rotate`, options)).kid;
}

/** How the set's JWKS is answered from now on. */
export async function serveKeys(set: string, mode: "ok" | "down" | "not-json" | "huge" | "redirect") {
  await post(`/sets/${set}/serve`, { mode });
}

/** How often the set's JWKS was fetched. */
export async function jwksFetches(set: string): Promise<number> {
  return ((await (await fetch(`${tokenLab}/sets/${set}/fetches`)).json()) as { count: number }).count;
}

/** What the scripted provider answers next (test/servers/token-lab.ts, POST /issuers/<name>/script). */
export async function scriptIssuer(name: string, script: Record<string, unknown>) {
  await post(`/issuers/${name}/script`, script);
}

/** Standard claims for `issuer` and `audience`, issued now, valid for `lifetime` seconds, over `more`. */
export function claims(issuer: string, audience: string, more: Record<string, unknown> = {}, lifetime = 300) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: issuer, aud: audience, sub: "alice", iat: now, exp: now + lifetime, ...more };
}
