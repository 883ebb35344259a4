import { createMiddleware } from "hono/factory";
import type { Scope } from "../config";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import type { Tenant } from "../tenant";

const encoder = new TextEncoder();
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="toolgate"' };

/**
 * The caller behind an Authorization header. The presented key is hashed first, so every
 * comparison is between two 32-byte digests, and every configured key is compared (no early exit):
 * neither the key's length nor which key matched shows in the timing.
 */
export async function authenticate(tenant: Tenant, authorization: string | undefined): Promise<Caller> {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
  if (!match) throw new ApiError(401, "missing_key", "Send the API key as Authorization: Bearer <key>.", CHALLENGE);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(match[1])));
  let found: Tenant["keys"][number] | undefined;
  for (const key of tenant.keys) {
    if (crypto.subtle.timingSafeEqual(digest, key.hash) && found === undefined) found = key;
  }
  if (!found) throw new ApiError(401, "invalid_key", "The API key is not valid for this tenant.", CHALLENGE);
  return { keyName: found.name, scopes: found.scopes };
}

/** admin holds every scope. */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.scopes.has(scope) || caller.scopes.has("admin");
}

/** Whose records the caller reads: admin every record (null), any other key only its own calls. */
export function viewerOf(caller: Caller): string | null {
  return caller.scopes.has("admin") ? null : caller.keyName;
}

/** Requires a valid key: 401 without one or with a wrong one. Sets c.var.caller. */
export const requireKey = createMiddleware<AppEnv>(async (c, next) => {
  c.set("caller", await authenticate(c.var.tenant, c.req.header("Authorization")));
  await next();
});

/** Requires a scope of the already authenticated caller: 403 without it. */
export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!hasScope(c.var.caller, scope)) {
      throw new ApiError(403, "forbidden", `This key lacks the "${scope}" scope.`);
    }
    await next();
  });
}
