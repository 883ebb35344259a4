import type { ResolvedUser } from "./caller";
import type { TenantView } from "./types";

/**
 * Verified user tokens, kept per isolate so a chat app that sends the same token with each call of a
 * conversation pays for its signature once (the budget: a call with a token costs at most 10% more
 * CPU than one with the key alone; bench/identity.ts). Kept per tenant view (a WeakMap on the tenant
 * object: a configuration change drops them with the view, so roles and issuers are always the
 * current ones), by the token's exact text, until the token's `exp`. A signing key the issuer revokes
 * does not end a token kept here before its `exp`; `maxLifetimeSeconds` bounds how long that is.
 */

export const TOKEN_CACHE_LIMITS = {
  /** Tokens kept per tenant view (the oldest goes first). */
  entries: 1024,
  /** Longer tokens are verified on every use: 1,024 of these stay within 4 MiB. */
  tokenChars: 4096,
} as const;

interface Kept {
  resolved: ResolvedUser;
  /** The token's `exp`, in ms since the epoch: never used at or after it. */
  expiresAt: number;
}

const views = new WeakMap<Pick<TenantView, "config">, Map<string, Kept>>();

/** The user a token verified earlier names in this tenant view, while the token lives; else undefined. */
export function keptTokenUser(
  tenant: Pick<TenantView, "config">,
  token: string,
  now = Date.now(),
): ResolvedUser | undefined {
  const kept = views.get(tenant)?.get(token);
  if (kept === undefined) return undefined;
  if (now < kept.expiresAt) return kept.resolved;
  views.get(tenant)!.delete(token);
  return undefined;
}

/**
 * Keeps a verified token's user until `exp` (seconds since the epoch, as the token says). A token
 * already past it, or too long to keep, is not kept.
 */
export function keepTokenUser(
  tenant: Pick<TenantView, "config">,
  token: string,
  resolved: ResolvedUser,
  exp: number,
  now = Date.now(),
): void {
  const expiresAt = exp * 1000;
  if (!(now < expiresAt) || token.length > TOKEN_CACHE_LIMITS.tokenChars) return;
  let kept = views.get(tenant);
  if (kept === undefined) views.set(tenant, (kept = new Map()));
  kept.delete(token);
  if (kept.size >= TOKEN_CACHE_LIMITS.entries) kept.delete(kept.keys().next().value!);
  kept.set(token, { resolved, expiresAt });
}
