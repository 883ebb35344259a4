import { type ConnectionClient, refreshConnection, type TokenSet } from "./oauth-client";
import { hasTokens, loadTokens, markNeedsUser, noteUse, type Owner, saveTokens } from "./store";
import type { AccessTokenResult } from "./tokens";

/** A token this close to its expiry is refreshed before use. */
export const REFRESH_BEFORE_MS = 60_000;

/** Refreshes under way in one Connections object, by connection: every caller meanwhile waits for that one. */
export type Refreshes = Map<string, Promise<AccessTokenResult>>;

async function refresh(
  sql: SqlStorage,
  owner: Owner,
  connection: string,
  tokens: TokenSet,
  client: ConnectionClient,
  secret: string,
): Promise<AccessTokenResult> {
  const result = await refreshConnection(client, tokens);
  if (!result.ok) {
    // The provider down: nothing changes, the call fails and a later one tries again.
    if (result.reason === "provider_unreachable") return { ok: false, reason: result.reason, detail: result.detail };
    markNeedsUser(sql, connection);
    return { ok: false, reason: "needs_user", detail: `the refresh was refused: ${result.detail}` };
  }
  // Disconnected while the provider answered: the new tokens are not kept.
  if (!hasTokens(sql, connection))
    return { ok: false, reason: "not_connected", detail: `not connected to ${connection}` };
  await saveTokens(sql, secret, owner, connection, result.tokens, Date.now());
  return { ok: true, accessToken: result.tokens.accessToken, expiresAt: result.tokens.expiresAt ?? null };
}

/**
 * What a call asks its user's Connections object for. `rejected`: the token the upstream just refused
 * (401), as if it had expired: refreshed (a refused refresh marks the connection as needing the user).
 */
export interface TokenRequest {
  owner: Owner;
  connection: string;
  scopes: readonly string[];
  client: ConnectionClient;
  rejected?: string;
}

/**
 * The user's access token of `connection` holding `scopes`, refreshed first when it expires within
 * REFRESH_BEFORE_MS or the upstream refused it: one refresh at a time per object (concurrent callers
 * share `refreshes`' entry). `secrets`: the tenant's connections secrets, current first.
 */
export async function accessToken(
  sql: SqlStorage,
  refreshes: Refreshes,
  request: TokenRequest,
  secrets: readonly string[],
): Promise<AccessTokenResult> {
  const { owner, connection, scopes, client, rejected } = request;
  const loaded = await loadTokens(sql, secrets, owner, connection);
  if (loaded === "absent") return { ok: false, reason: "not_connected", detail: `not connected to ${connection}` };
  if (loaded === "unreadable" || loaded.needsUser)
    return { ok: false, reason: "needs_user", detail: `the connection to ${connection} must be made again` };
  const missing = scopes.filter((scope) => !loaded.tokens.scopes.includes(scope));
  if (missing.length > 0)
    return { ok: false, reason: "short_scopes", detail: `the connection lacks the scopes ${missing.join(", ")}` };
  const now = Date.now();
  noteUse(sql, connection, now);
  const { expiresAt, accessToken: stored } = loaded.tokens;
  const refused = rejected !== undefined && rejected === stored;
  if (!refused && (expiresAt === undefined || expiresAt - now > REFRESH_BEFORE_MS))
    return { ok: true, accessToken: stored, expiresAt: expiresAt ?? null };
  let running = refreshes.get(connection);
  if (!running) {
    running = refresh(sql, owner, connection, loaded.tokens, client, secrets[0]!).finally(() =>
      refreshes.delete(connection),
    );
    refreshes.set(connection, running);
  }
  return running;
}
