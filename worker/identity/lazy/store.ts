/**
 * The SQLite rows of a tenant's Identity object (worker/identity/object.ts). Every function is
 * synchronous: one transaction each. Expired rows are pruned on write, so the tables hold only what
 * is still live. A value out of bounds is answered "invalid" and never stored: callers check what a
 * request sent first, this is the last wall (an RPC that throws would be an error reported far from
 * its cause). In the library module, so a tenant without sign-in never compiles it.
 */
import type { LoginTransaction, Stored } from "./types";

export type { LoginTransaction, Stored } from "./types";

/** Someone who connected an MCP client for themselves: listed to admins, who page through their grants. */
export interface GrantOwner {
  /** userKey(tenant, id): the OAuth library's user id of their grants. */
  key: string;
  id: string;
  name?: string;
  /** When their first grant was noted (ms). */
  firstAt: number;
}

/** Sign-ins under way at once; past it the oldest is dropped (its person starts again). */
export const MAX_PENDING_LOGINS = 10_000;
/** Grant owners per page, at most. */
export const MAX_OWNERS_PAGE = 100;

const HASH = /^[0-9a-f]{64}$/;
const TOKEN = /^[A-Za-z0-9._~-]{1,128}$/;
const SECRET_NAME = /^[a-z0-9_-]{1,64}$/;
const USER_KEY = /^u_[A-Za-z0-9_-]{32}$/;

type TxRow = {
  id_hash: string;
  state: string;
  nonce: string;
  verifier: string;
  return_to: string;
  origin: string;
  expires_at: number;
};
type OwnerRow = { user_key: string; user_id: string; name: string | null; first_at: number };

export function createSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS login_tx (
    id_hash TEXT PRIMARY KEY, state TEXT NOT NULL, nonce TEXT NOT NULL, verifier TEXT NOT NULL,
    return_to TEXT NOT NULL, origin TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
  sql.exec("CREATE INDEX IF NOT EXISTS login_tx_by_expiry ON login_tx (expires_at)");
  sql.exec("CREATE TABLE IF NOT EXISTS revoked_sessions (sid TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
  sql.exec(`CREATE TABLE IF NOT EXISTS grant_owners (
    user_key TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT, first_at INTEGER NOT NULL)`);
  sql.exec("CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL)");
}

/**
 * Stores a sign-in under way (its id's SHA-256, never the id): idHash 64 hex characters; state, nonce
 * and verifier 1-128 URL-safe characters; returnTo at most 600, origin at most 300. Expired ones go,
 * and the oldest past MAX_PENDING_LOGINS.
 */
export function beginLogin(sql: SqlStorage, tx: LoginTransaction, now: number): Stored {
  const valid =
    HASH.test(tx.idHash) &&
    [tx.state, tx.nonce, tx.verifier].every((value) => TOKEN.test(value)) &&
    tx.returnTo.length <= 600 &&
    tx.origin.length <= 300 &&
    Number.isSafeInteger(tx.expiresAt);
  if (!valid) return "invalid";
  sql.exec("DELETE FROM login_tx WHERE expires_at <= ?", now);
  const pending = sql.exec<{ n: number }>("SELECT count(*) AS n FROM login_tx").one().n;
  if (pending >= MAX_PENDING_LOGINS)
    sql.exec(
      "DELETE FROM login_tx WHERE id_hash IN (SELECT id_hash FROM login_tx ORDER BY expires_at LIMIT ?)",
      pending - MAX_PENDING_LOGINS + 1,
    );
  sql.exec(
    "INSERT OR REPLACE INTO login_tx VALUES (?, ?, ?, ?, ?, ?, ?)",
    tx.idHash,
    tx.state,
    tx.nonce,
    tx.verifier,
    tx.returnTo,
    tx.origin,
    tx.expiresAt,
  );
  return "stored";
}

/** The sign-in, deleted as it is read: a second callback (a replay) finds nothing. Null when absent or expired. */
export function takeLogin(sql: SqlStorage, idHash: string, now: number): LoginTransaction | null {
  if (!HASH.test(idHash)) return null;
  const row = sql.exec<TxRow>("DELETE FROM login_tx WHERE id_hash = ? RETURNING *", idHash).toArray()[0];
  if (!row || row.expires_at <= now) return null;
  return {
    idHash: row.id_hash,
    state: row.state,
    nonce: row.nonce,
    verifier: row.verifier,
    returnTo: row.return_to,
    origin: row.origin,
    expiresAt: row.expires_at,
  };
}

/** Revokes a session id (1-128 URL-safe characters) until it would have expired anyway. */
export function revokeSession(sql: SqlStorage, sid: string, expiresAt: number, now: number): Stored {
  if (!TOKEN.test(sid) || !Number.isSafeInteger(expiresAt)) return "invalid";
  sql.exec("DELETE FROM revoked_sessions WHERE expires_at <= ?", now);
  if (expiresAt > now) sql.exec("INSERT OR REPLACE INTO revoked_sessions VALUES (?, ?)", sid, expiresAt);
  return "stored";
}

/** The ids of revoked sessions that have not expired yet. */
export function revokedSessions(sql: SqlStorage, now: number): string[] {
  return sql
    .exec<{ sid: string }>("SELECT sid FROM revoked_sessions WHERE expires_at > ? ORDER BY sid", now)
    .toArray()
    .map((row) => row.sid);
}

/**
 * Notes a person who connected a client (key: their user key; id 1-256, name ≤ 200): their id and
 * name kept current, when first, kept as it was.
 */
export function noteGrantOwner(sql: SqlStorage, key: string, user: { id: string; name?: string }, now: number): Stored {
  if (!USER_KEY.test(key) || user.id.length < 1 || user.id.length > 256 || (user.name?.length ?? 0) > 200)
    return "invalid";
  sql.exec(
    `INSERT INTO grant_owners VALUES (?, ?, ?, ?)
      ON CONFLICT (user_key) DO UPDATE SET user_id = excluded.user_id, name = excluded.name`,
    key,
    user.id,
    user.name ?? null,
    now,
  );
  return "stored";
}

/** Grant owners by key, after `after` (exclusive; null from the start), at most `limit` (1-100). */
export function grantOwners(sql: SqlStorage, after: string | null, limit: number): GrantOwner[] {
  const count = Math.min(Math.max(1, Math.floor(limit)), MAX_OWNERS_PAGE);
  return sql
    .exec<OwnerRow>("SELECT * FROM grant_owners WHERE user_key > ? ORDER BY user_key LIMIT ?", after ?? "", count)
    .toArray()
    .map((row) => ({
      key: row.user_key,
      id: row.user_id,
      ...(row.name === null ? {} : { name: row.name }),
      firstAt: row.first_at,
    }));
}

/**
 * A 32-byte secret of this tenant's by name (1-64 of a-z 0-9 _ -), made on first use and the same ever
 * after (the session cookie's key).
 */
export function secret(sql: SqlStorage, name: string): Uint8Array | "invalid" {
  if (!SECRET_NAME.test(name)) return "invalid";
  const stored = sql.exec<{ value: ArrayBuffer }>("SELECT value FROM secrets WHERE name = ?", name).toArray()[0];
  if (stored) return new Uint8Array(stored.value);
  const value = crypto.getRandomValues(new Uint8Array(32));
  sql.exec("INSERT INTO secrets VALUES (?, ?)", name, value);
  return value;
}
