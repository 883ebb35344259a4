import { createParkedSchema } from "./parked";
import { open, seal } from "./seal";
import type { TokenSet } from "./oauth-client";

/**
 * The rows of one user's Connections object (SQLite): connects under way (single use, by their id's
 * SHA-256) and the user's tokens per connection, sealed (seal.ts). Plain functions over the object's
 * SQL storage, so the object's class (in the bundle) stays small.
 */

/** Connects under way per user, and how long one may take (from the connect route to its callback). */
export const CONNECT_LIMITS = { pending: 16, ttlMs: 10 * 60_000 } as const;

/** A connect under way: what its callback must match. */
export interface PendingConnect {
  connection: string;
  state: string;
  verifier: string;
  scopes: string[];
  expiresAt: number;
}

/** What a listing shows of a connection (never a token). */
export interface ConnectionInfo {
  connection: string;
  scopes: string[];
  connectedAt: number;
  usedAt: number | null;
  needsUser: boolean;
}

/** Where a sealed row belongs: HKDF's info, so a row copied to another user or connection does not open. */
export interface Owner {
  tenant: string;
  userKey: string;
}
const infoOf = (owner: Owner, connection: string) => `${owner.tenant}\n${owner.userKey}\n${connection}`;

export function createSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS pending (
    id_hash TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
  sql.exec(`CREATE TABLE IF NOT EXISTS tokens (
    connection TEXT PRIMARY KEY, sealed TEXT NOT NULL, scopes TEXT NOT NULL,
    connected_at INTEGER NOT NULL, used_at INTEGER, needs_user INTEGER NOT NULL DEFAULT 0)`);
  // The user's last console sign-in's ID token (one row), for exchange connections (RFC 8693).
  sql.exec(`CREATE TABLE IF NOT EXISTS subject (
    id INTEGER PRIMARY KEY CHECK (id = 1), sealed TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
  // The tenant's index object only (TENANT_INDEX): who holds which connection, for admins' counts.
  sql.exec(`CREATE TABLE IF NOT EXISTS members (
    user_key TEXT NOT NULL, connection TEXT NOT NULL, PRIMARY KEY (user_key, connection))`);
  createParkedSchema(sql);
}

/** Stores a connect under way; false when the user has too many already. */
export function beginPending(sql: SqlStorage, idHash: string, pending: PendingConnect, now: number): boolean {
  sql.exec("DELETE FROM pending WHERE expires_at <= ?", now);
  const count = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pending").one().n;
  if (count >= CONNECT_LIMITS.pending) return false;
  sql.exec(
    "INSERT INTO pending (id_hash, body, expires_at) VALUES (?, ?, ?)",
    idHash,
    JSON.stringify(pending),
    pending.expiresAt,
  );
  return true;
}

/** The connect with this id hash, deleted as it is read; null when absent, taken or expired. */
export function takePending(sql: SqlStorage, idHash: string, now: number): PendingConnect | null {
  const row = sql
    .exec<{ body: string; expires_at: number }>("SELECT body, expires_at FROM pending WHERE id_hash = ?", idHash)
    .toArray()[0];
  if (!row) return null;
  sql.exec("DELETE FROM pending WHERE id_hash = ?", idHash);
  return row.expires_at > now ? (JSON.parse(row.body) as PendingConnect) : null;
}

/** Seals and stores the user's tokens of a connection (a connect, or a refresh). */
export async function saveTokens(
  sql: SqlStorage,
  secret: string,
  owner: Owner,
  connection: string,
  tokens: TokenSet,
  now: number,
): Promise<void> {
  const sealed = await seal(secret, infoOf(owner, connection), tokens);
  sql.exec(
    `INSERT INTO tokens (connection, sealed, scopes, connected_at, needs_user) VALUES (?, ?, ?, ?, 0)
     ON CONFLICT (connection) DO UPDATE SET sealed = excluded.sealed, scopes = excluded.scopes, needs_user = 0`,
    connection,
    sealed,
    JSON.stringify(tokens.scopes),
    now,
  );
}

export type Loaded = { tokens: TokenSet; needsUser: boolean } | "absent" | "unreadable";

/**
 * The user's tokens of a connection, opened with the current secret or a previous one; a row sealed
 * by a previous one is sealed again under the current (rotation). "unreadable" when no secret opens it.
 */
export async function loadTokens(
  sql: SqlStorage,
  secrets: readonly string[],
  owner: Owner,
  connection: string,
): Promise<Loaded> {
  const row = sql
    .exec<{ sealed: string; needs_user: number }>(
      "SELECT sealed, needs_user FROM tokens WHERE connection = ?",
      connection,
    )
    .toArray()[0];
  if (!row) return "absent";
  const opened = await open<TokenSet>(secrets, infoOf(owner, connection), row.sealed);
  if (!opened) return "unreadable";
  if (opened.stale)
    sql.exec(
      "UPDATE tokens SET sealed = ? WHERE connection = ?",
      await seal(secrets[0]!, infoOf(owner, connection), opened.value),
      connection,
    );
  return { tokens: opened.value, needsUser: row.needs_user === 1 };
}

/** The sealed subject row's HKDF info: no connection is named "#subject". */
const SUBJECT = "#subject";

/** Keeps the user's ID token from their console sign-in, sealed, until it expires (the last one wins). */
export async function keepSubject(
  sql: SqlStorage,
  secret: string,
  owner: Owner,
  idToken: { token: string; expiresAt: number },
): Promise<void> {
  const sealed = await seal(secret, infoOf(owner, SUBJECT), idToken.token);
  sql.exec(
    "INSERT INTO subject (id, sealed, expires_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET " +
      "sealed = excluded.sealed, expires_at = excluded.expires_at",
    sealed,
    idToken.expiresAt,
  );
}

/** The user's kept ID token while it lives, opened with the current or a previous secret; else undefined. */
export async function keptSubject(
  sql: SqlStorage,
  secrets: readonly string[],
  owner: Owner,
  now: number,
): Promise<string | undefined> {
  sql.exec("DELETE FROM subject WHERE expires_at <= ?", now);
  const row = sql.exec<{ sealed: string }>("SELECT sealed FROM subject").toArray()[0];
  if (!row) return undefined;
  return (await open<string>(secrets, infoOf(owner, SUBJECT), row.sealed))?.value;
}

/** Marks a connection as needing the user again (its refresh failed): its tokens are kept, unused. */
export function markNeedsUser(sql: SqlStorage, connection: string): void {
  sql.exec("UPDATE tokens SET needs_user = 1 WHERE connection = ?", connection);
}

/** Notes a use (the listing's "last used"). */
export function noteUse(sql: SqlStorage, connection: string, now: number): void {
  sql.exec("UPDATE tokens SET used_at = ? WHERE connection = ?", now, connection);
}

/** The user's connections, never their tokens. */
export function listConnections(sql: SqlStorage): ConnectionInfo[] {
  return sql
    .exec<{ connection: string; scopes: string; connected_at: number; used_at: number | null; needs_user: number }>(
      "SELECT connection, scopes, connected_at, used_at, needs_user FROM tokens ORDER BY connection",
    )
    .toArray()
    .map((row) => ({
      connection: row.connection,
      scopes: JSON.parse(row.scopes) as string[],
      connectedAt: row.connected_at,
      usedAt: row.used_at,
      needsUser: row.needs_user === 1,
    }));
}

/** Removes the user's tokens of a connection; false when there were none. */
export function deleteTokens(sql: SqlStorage, connection: string): boolean {
  return sql.exec("DELETE FROM tokens WHERE connection = ?", connection).rowsWritten > 0;
}

/** Whether the user holds tokens of a connection (a refresh finishing after a disconnect must not bring them back). */
export function hasTokens(sql: SqlStorage, connection: string): boolean {
  return sql.exec("SELECT 1 FROM tokens WHERE connection = ?", connection).toArray().length > 0;
}

/** The tenant's index: notes that a user holds (true) or no longer holds (false) a connection. */
export function noteMember(sql: SqlStorage, userKey: string, connection: string, holds: boolean): void {
  if (holds) sql.exec("INSERT OR IGNORE INTO members (user_key, connection) VALUES (?, ?)", userKey, connection);
  else sql.exec("DELETE FROM members WHERE user_key = ? AND connection = ?", userKey, connection);
}

/** The tenant's index: how many users hold each connection. */
export function memberCounts(sql: SqlStorage): Record<string, number> {
  const rows = sql
    .exec<{ connection: string; n: number }>("SELECT connection, COUNT(*) AS n FROM members GROUP BY connection")
    .toArray();
  return Object.fromEntries(rows.map((row) => [row.connection, row.n]));
}
