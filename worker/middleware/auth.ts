import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Scope } from "../tenant/config";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { waitUntilOf } from "../execution";
import { actAs } from "../identity/act-as";
import { ambientCaller, wantsSession } from "../identity/ambient";
import { signsPeopleIn } from "../identity/settings";
import { tenantKeys, type KeysNamespace } from "../keys/address";
import { noteKeyUse, runtimeKeys, type RuntimeKey } from "../keys/cache";
import { siteOf } from "../oauth/context";
import { grantCaller } from "../oauth/grant-caller";
import { looksLikeAccessToken, REQUIRED_SCOPES } from "../oauth/site";

const encoder = new TextEncoder();

/**
 * The 401 challenge. Where OAuth is served, it names the protected resource metadata (RFC 9728) and
 * the scope any access needs, which is how an MCP client finds where to sign in.
 */
function challenge(c: Context<AppEnv>, error?: "invalid_token"): Record<string, string> {
  const site = siteOf(c);
  const parts = ['Bearer realm="toolgate"'];
  if (error) parts.push(`error="${error}"`);
  if (site) parts.push(`resource_metadata="${site.metadataUrl}"`, `scope="${REQUIRED_SCOPES.join(" ")}"`);
  return { "WWW-Authenticate": parts.join(", ") };
}

/** The bearer credential of an Authorization header, or undefined. */
function bearerOf(authorization: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1];
}

/**
 * The caller behind an Authorization header, acting for the user the request names if it names one
 * (Toolgate-User, Toolgate-User-Token: identity/act-as.ts, which refuses credentials that may not).
 * Without one, a person's console session or Access assertion counts on /v1/* when the request sends
 * Toolgate-Session: 1 and the tenant signs people in (identity/ambient.ts); never on /mcp.
 */
export async function authenticate(c: Context<AppEnv>, authorization: string | undefined): Promise<Caller> {
  const ambient =
    authorization === undefined &&
    wantsSession(c) &&
    signsPeopleIn(c.var.tenant.config.identity) &&
    c.req.path.startsWith("/v1/");
  return actAs(c, ambient ? await ambientCaller(c) : await credentialCaller(c, authorization));
}

/**
 * The caller an Authorization header authenticates: an OAuth access token (checked by the OAuth
 * library, only for tokens of its shape), or a key. A key is hashed first, so every comparison is
 * between two 32-byte digests, and every key is compared — configured ones and those created at
 * runtime, current and rotated-out secrets alike — with no early exit: neither the key's length nor
 * which key matched shows in the timing.
 */
async function credentialCaller(c: Context<AppEnv>, authorization: string | undefined): Promise<Caller> {
  const token = bearerOf(authorization);
  if (token === undefined)
    throw new ApiError(
      401,
      "missing_key",
      "Send the API key or access token as Authorization: Bearer <key>.",
      challenge(c),
    );
  const oauth = await grantCaller(c, token);
  if (oauth) return oauth;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(token)));
  const tenant = c.get("tenant");
  let runtime: RuntimeKey[] = [];
  let unavailable: unknown;
  if (c.env.KEYS) {
    try {
      runtime = await runtimeKeys(tenantKeys({ KEYS: c.env.KEYS as unknown as KeysNamespace }, tenant.name));
    } catch (error) {
      unavailable = error; // configured keys still work; a runtime key cannot be checked
    }
  }
  let configured: (typeof tenant.keys)[number] | undefined;
  for (const key of tenant.keys) {
    if (crypto.subtle.timingSafeEqual(digest, key.hash) && configured === undefined) configured = key;
  }
  const now = Date.now();
  let found: RuntimeKey | undefined;
  for (const entry of runtime) {
    const current = crypto.subtle.timingSafeEqual(digest, entry.hash);
    const previous =
      entry.previous !== undefined &&
      crypto.subtle.timingSafeEqual(digest, entry.previous) &&
      (entry.key.previousValidUntil ?? 0) > now;
    if ((current || previous) && found === undefined) found = entry;
  }
  if (configured)
    return {
      keyName: configured.name,
      scopes: configured.scopes,
      binding: configured.hash,
      ...(configured.actAs ? { actAs: configured.actAs } : {}),
      ...(configured.codeMode ? { codeMode: configured.codeMode } : {}),
    };
  if (found) return runtimeCaller(c, found, now);
  if (unavailable !== undefined) throw unavailable;
  if (looksLikeAccessToken(token))
    throw new ApiError(
      401,
      "invalid_token",
      "The access token is not valid here: expired, revoked, or issued for another resource. Sign in again.",
      challenge(c, "invalid_token"),
    );
  throw new ApiError(401, "invalid_key", "The API key is not valid for this tenant.", challenge(c));
}

function runtimeCaller(c: Context<AppEnv>, entry: RuntimeKey, now: number): Caller {
  const { key } = entry;
  if (key.expiresAt !== undefined && key.expiresAt <= now) {
    throw new ApiError(
      401,
      "key_expired",
      `The API key "${key.name}" expired at ${new Date(key.expiresAt).toISOString()}.`,
      challenge(c),
    );
  }
  noteKeyUse(
    tenantKeys({ KEYS: c.env.KEYS as unknown as KeysNamespace }, c.get("tenant").name),
    key.id,
    waitUntilOf(c),
    now,
  );
  return {
    keyName: key.name,
    scopes: entry.scopes,
    binding: entry.binding,
    ...(entry.tools ? { tools: entry.tools } : {}),
    ...(key.ratePerMinute ? { rateLimits: [{ id: `key:${key.id}`, perMinute: key.ratePerMinute }] } : {}),
    ...(key.actAs ? { actAs: key.actAs } : {}),
    ...(key.codeMode ? { codeMode: key.codeMode } : {}),
  };
}

/** admin holds every scope. */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.scopes.has(scope) || caller.scopes.has("admin");
}

/** Requires a valid key or token: 401 without one or with a wrong one. Sets c.var.caller. */
export const requireKey = createMiddleware<AppEnv>(async (c, next) => {
  c.set("caller", await authenticate(c, c.req.header("Authorization")));
  await next();
});

/** The 403 for a caller without `scope`; an OAuth client is told which scope to ask for (step-up). */
export function forbidden(caller: Caller, scope: Scope): ApiError {
  const challenge = caller.oauth
    ? `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${caller.oauth.metadataUrl}"`
    : undefined;
  const headers: Record<string, string> = challenge ? { "WWW-Authenticate": challenge } : {};
  return new ApiError(403, "forbidden", `This ${caller.oauth ? "grant" : "key"} lacks the "${scope}" scope.`, headers);
}

/** Requires a scope of the already authenticated caller: 403 without it. */
export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!hasScope(c.get("caller"), scope)) throw forbidden(c.get("caller"), scope);
    await next();
  });
}
