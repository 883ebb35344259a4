import type { ConnectionClient } from "./oauth-client";
import type { Owner } from "./store";

/** Decrypted tokens an isolate keeps, at most this long (and never past a minute before their expiry). */
export const TOKEN_KEPT_MS = 5 * 60_000;
const MAX_KEPT = 1_024;
const kept = new Map<string, { token: string; until: number; scopes: readonly string[] }>();

/** What the Connections object answers (worker/connections/object.ts). */
export type AccessTokenResult =
  | { ok: true; accessToken: string; expiresAt: number | null }
  | { ok: false; reason: "not_connected" | "needs_user" | "short_scopes" | "provider_unreachable"; detail: string };

/** What a call's token needs of the Worker (this module imports nothing of it). */
export interface TokenDeps {
  tenant: string;
  /** The call's user; undefined: made for nobody. */
  userId: string | undefined;
  /** The request's origin, for the connect URL (undefined: a path alone). */
  origin: string | undefined;
  title: string;
  userKey(id: string): Promise<string>;
  object(userKey: string): {
    accessToken(
      owner: Owner,
      connection: string,
      scopes: readonly string[],
      client: ConnectionClient,
      secrets: readonly string[],
    ): Promise<AccessTokenResult>;
  };
  client(): ConnectionClient;
  secrets(): string[];
  /** src/errors.ts toolError: how the call ends. */
  fail(code: "denied" | "upstream_error", message: string, retryable: boolean): Error;
}

/**
 * The call's user's access token of `connection` holding `scopes`: from this isolate while kept, else
 * from the user's Connections object (one round trip). No user, no connection or short scopes: the
 * call ends denied, naming the connect URL; the tool makes no upstream request.
 */
export async function userToken(connection: string, scopes: readonly string[], deps: TokenDeps): Promise<string> {
  if (deps.userId === undefined)
    throw deps.fail(
      "denied",
      `This tool acts as the user through ${deps.title}, and this call is made for no user: ` +
        "call it signed in, or with a key acting for a user (Toolgate-User-Token).",
      false,
    );
  const key = await deps.userKey(deps.userId);
  const cacheKey = `${deps.tenant}\n${key}\n${connection}`;
  const now = Date.now();
  const hit = kept.get(cacheKey);
  if (hit && hit.until > now && scopes.every((scope) => hit.scopes.includes(scope))) return hit.token;
  const owner = { tenant: deps.tenant, userKey: key };
  const got = await deps.object(key).accessToken(owner, connection, scopes, deps.client(), deps.secrets());
  if (!got.ok) {
    kept.delete(cacheKey);
    if (got.reason === "provider_unreachable")
      throw deps.fail("upstream_error", `${deps.title} could not refresh the user's connection: ${got.detail}`, true);
    const url = `${deps.origin ?? ""}/connections/${connection}/connect`;
    throw deps.fail("denied", `Connect ${deps.title} first (${got.detail}): open ${url}, then call again.`, false);
  }
  const until = Math.min(now + TOKEN_KEPT_MS, (got.expiresAt ?? Number.POSITIVE_INFINITY) - 60_000);
  if (until > now) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(cacheKey, { token: got.accessToken, until, scopes });
  }
  return got.accessToken;
}
