import { cutPoint } from "../../src/budget";

/**
 * Large values stored beside a call in chunks: SQLite rows in a Durable Object are capped at 2 MB,
 * and a UTF-16 code unit takes at most 3 bytes of UTF-8, so 500k units always fit. Cuts never split
 * a surrogate pair (a lone surrogate cannot be stored as UTF-8).
 */
export const CHUNK_UNITS = 500_000;

/** answers: a waiting call's answers so far (inputs.ts), raw JSON like args. */
export type BlobKind = "output" | "text" | "args" | "answers";

export function writeBlob(sql: SqlStorage, callId: string, kind: BlobKind, value: string, chunk = CHUNK_UNITS): void {
  sql.exec("DELETE FROM blobs WHERE call_id = ? AND kind = ?", callId, kind);
  let start = 0;
  do {
    // One unit past the chunk, so cutPoint sees whether the cut would split a pair.
    const end = start + cutPoint(value.slice(start, start + chunk + 1), chunk);
    sql.exec(
      "INSERT INTO blobs (call_id, kind, start, body) VALUES (?, ?, ?, ?)",
      callId,
      kind,
      start,
      value.slice(start, end),
    );
    start = end;
  } while (start < value.length);
}

export function readBlob(sql: SqlStorage, callId: string, kind: BlobKind): string | undefined {
  const rows = sql
    .exec<{ body: string }>("SELECT body FROM blobs WHERE call_id = ? AND kind = ? ORDER BY start", callId, kind)
    .toArray();
  return rows.length === 0 ? undefined : rows.map((row) => row.body).join("");
}

/** value.slice(offset, offset + limit), reading only the chunks that overlap it. */
export function readBlobRange(sql: SqlStorage, callId: string, kind: BlobKind, offset: number, limit: number): string {
  const rows = sql
    .exec<{ start: number; body: string }>(
      `SELECT start, body FROM blobs WHERE call_id = ? AND kind = ? AND start < ?
         AND start >= coalesce((SELECT max(start) FROM blobs WHERE call_id = ? AND kind = ? AND start <= ?), 0)
       ORDER BY start`,
      callId,
      kind,
      offset + limit,
      callId,
      kind,
      offset,
    )
    .toArray();
  if (rows.length === 0) return "";
  const first = rows[0]!.start;
  return rows
    .map((row) => row.body)
    .join("")
    .slice(offset - first, offset - first + limit);
}

/** A call's blobs of the given kinds (one statement), or all of them when none is named. */
export function deleteBlobs(sql: SqlStorage, callId: string, ...kinds: BlobKind[]): void {
  if (kinds.length === 0) sql.exec("DELETE FROM blobs WHERE call_id = ?", callId);
  else
    sql.exec(`DELETE FROM blobs WHERE call_id = ? AND kind IN (${kinds.map(() => "?").join(", ")})`, callId, ...kinds);
}
