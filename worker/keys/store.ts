import type { CodeMode } from "../code-mode/modes";
import type { ActAs } from "../identity/settings";
import type { ActiveKey, KeyInfo, KeyInput } from "./types";

/** The SQLite rows of a tenant's Keys object. Every function is synchronous: one transaction each. */

type KeyRow = {
  id: string;
  name: string;
  hash: string;
  scopes: string;
  tools: string | null;
  rate_per_minute: number | null;
  expires_at: number | null;
  created_at: number;
  last_used_at: number | null;
  rotated_at: number | null;
  previous_hash: string | null;
  previous_until: number | null;
  revoked_at: number | null;
  act_as: string | null;
  code_mode: string | null;
};

export function createSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS keys (
    id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, tools TEXT,
    rate_per_minute INTEGER, expires_at INTEGER, created_at INTEGER NOT NULL, last_used_at INTEGER,
    rotated_at INTEGER, previous_hash TEXT, previous_until INTEGER, revoked_at INTEGER, act_as TEXT, code_mode TEXT)`);
  // Objects made before keys could act for users, or set their code mode.
  for (const column of ["act_as", "code_mode"])
    if (sql.exec("SELECT 1 FROM pragma_table_info('keys') WHERE name = ?", column).toArray().length === 0)
      sql.exec(`ALTER TABLE keys ADD COLUMN ${column} TEXT`);
}

function inputOf(row: KeyRow): KeyInput {
  return {
    name: row.name,
    scopes: JSON.parse(row.scopes) as KeyInput["scopes"],
    ...(row.tools === null ? {} : { tools: JSON.parse(row.tools) as string[] }),
    ...(row.rate_per_minute === null ? {} : { ratePerMinute: row.rate_per_minute }),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.act_as === null ? {} : { actAs: row.act_as as ActAs }),
    ...(row.code_mode === null ? {} : { codeMode: row.code_mode as CodeMode }),
  };
}

function infoOf(row: KeyRow, now: number): KeyInfo {
  return {
    id: row.id,
    ...inputOf(row),
    createdAt: row.created_at,
    ...(row.last_used_at === null ? {} : { lastUsedAt: row.last_used_at }),
    ...(row.rotated_at === null ? {} : { rotatedAt: row.rotated_at }),
    ...(row.previous_until !== null && row.previous_until > now ? { previousValidUntil: row.previous_until } : {}),
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
  };
}

function row(sql: SqlStorage, id: string): KeyRow | undefined {
  return sql.exec<KeyRow>("SELECT * FROM keys WHERE id = ?", id).toArray()[0];
}

/** Every key, revoked ones included (their names stay taken: records name their key). */
export function listKeys(sql: SqlStorage, now: number): KeyInfo[] {
  return sql
    .exec<KeyRow>("SELECT * FROM keys ORDER BY created_at, id")
    .toArray()
    .map((r) => infoOf(r, now));
}

/** The keys a check may accept: not revoked (expiry is checked with the key, so it shows as such). */
export function activeKeys(sql: SqlStorage, now: number): ActiveKey[] {
  return sql
    .exec<KeyRow>("SELECT * FROM keys WHERE revoked_at IS NULL")
    .toArray()
    .map((r) => ({
      id: r.id,
      hash: r.hash,
      ...inputOf(r),
      ...(r.previous_hash !== null && r.previous_until !== null && r.previous_until > now
        ? { previousHash: r.previous_hash, previousValidUntil: r.previous_until }
        : {}),
    }));
}

export function insertKey(
  sql: SqlStorage,
  id: string,
  hash: string,
  input: KeyInput,
  now: number,
): KeyInfo | "name_taken" {
  if (sql.exec("SELECT 1 FROM keys WHERE name = ?", input.name).toArray().length > 0) return "name_taken";
  sql.exec(
    `INSERT INTO keys (id, name, hash, scopes, tools, rate_per_minute, expires_at, act_as, code_mode, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    input.name,
    hash,
    JSON.stringify(input.scopes),
    input.tools === undefined ? null : JSON.stringify(input.tools),
    input.ratePerMinute ?? null,
    input.expiresAt ?? null,
    input.actAs ?? null,
    input.codeMode ?? null,
    now,
  );
  return infoOf(row(sql, id)!, now);
}

/** A new secret; the previous one is accepted for graceMs more. Revoked keys cannot be rotated. */
export function rotateKey(
  sql: SqlStorage,
  id: string,
  hash: string,
  graceMs: number,
  now: number,
): KeyInfo | "not_found" {
  const current = row(sql, id);
  if (!current || current.revoked_at !== null) return "not_found";
  sql.exec(
    "UPDATE keys SET hash = ?, previous_hash = ?, previous_until = ?, rotated_at = ? WHERE id = ?",
    hash,
    graceMs > 0 ? current.hash : null,
    graceMs > 0 ? now + graceMs : null,
    now,
    id,
  );
  return infoOf(row(sql, id)!, now);
}

export function revokeKey(sql: SqlStorage, id: string, now: number): KeyInfo | "not_found" {
  const current = row(sql, id);
  if (!current) return "not_found";
  if (current.revoked_at === null)
    sql.exec("UPDATE keys SET revoked_at = ?, previous_hash = NULL, previous_until = NULL WHERE id = ?", now, id);
  return infoOf(row(sql, id)!, now);
}

/** Batched last-use times from isolates: only ever moves forward. */
export function touchKeys(sql: SqlStorage, uses: readonly (readonly [string, number])[]): void {
  for (const [id, at] of uses)
    sql.exec(
      "UPDATE keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
      at,
      id,
      at,
    );
}
