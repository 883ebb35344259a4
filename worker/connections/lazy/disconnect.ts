import { type ConnectionClient, type Revocation, revokeConnection } from "./oauth-client";
import { deleteTokens, loadTokens, type Owner } from "./store";

/**
 * What a disconnect did: nothing (the user held no such connection), or removed the tokens and revoked
 * them at the provider ("unreadable": sealed under a secret no longer set, so there was nothing to revoke).
 */
export type DisconnectResult = { removed: false } | ({ removed: true } & (Revocation | { revoked: "unreadable" }));

/**
 * Removes the user's tokens of `connection`, then revokes them at the provider (RFC 7009). The tokens
 * go first: whatever the provider answers, toolgate holds them no more.
 */
export async function disconnect(
  sql: SqlStorage,
  request: { owner: Owner; connection: string; client: ConnectionClient },
  secrets: readonly string[],
): Promise<DisconnectResult> {
  const { owner, connection, client } = request;
  const loaded = await loadTokens(sql, secrets, owner, connection);
  if (loaded === "absent" || !deleteTokens(sql, connection)) return { removed: false };
  if (loaded === "unreadable") return { removed: true, revoked: "unreadable" };
  return { removed: true, ...(await revokeConnection(client, loaded.tokens)) };
}
