/**
 * Calls parked for want of a connection (a detached run or an MCP task whose user had not connected,
 * or whose scopes were short): one row per call in the user's Connections object, so the connect's
 * callback finds the calls it resumes. The call itself waits in the ledger (awaiting_input, under the
 * question `connect:<name>`): expiry and cancel are the ledger's; a row outliving its call is dropped
 * at its deadline, and answering it then changes nothing.
 */

/** Calls one user may have parked at once (per Connections object). */
export const PARKED_LIMIT = 64;

/** The question a parked call waits on: answered by the connect's callback (or by an MCP client, "accept"). */
export const connectKey = (connection: string) => `connect:${connection}`;

/** What the callback answers a parked call's question with: the user connected. */
export const CONNECTED_ANSWER = { action: "accept" } as const;

export function createParkedSchema(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS parked (
    call_id TEXT PRIMARY KEY, connection TEXT NOT NULL, scopes TEXT NOT NULL, expires_at INTEGER NOT NULL)`);
}

/** Parks a call on `connection` until `expiresAt`; false when the user has too many parked already. */
export function parkCall(
  sql: SqlStorage,
  callId: string,
  connection: string,
  scopes: readonly string[],
  expiresAt: number,
): boolean {
  sql.exec("DELETE FROM parked WHERE expires_at <= ?", Date.now());
  const parked = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM parked WHERE call_id <> ?", callId).one().n;
  if (parked >= PARKED_LIMIT) return false;
  sql.exec(
    `INSERT INTO parked (call_id, connection, scopes, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (call_id) DO UPDATE SET connection = excluded.connection, scopes = excluded.scopes,
       expires_at = excluded.expires_at`,
    callId,
    connection,
    JSON.stringify(scopes),
    expiresAt,
  );
  return true;
}

/** Whether the user's tokens of `connection` serve `scopes` (held, not needing the user, every scope granted). */
function serves(sql: SqlStorage, connection: string, scopes: readonly string[]): boolean {
  const row = sql
    .exec<{ scopes: string; needs_user: number }>(
      "SELECT scopes, needs_user FROM tokens WHERE connection = ?",
      connection,
    )
    .toArray()[0];
  if (!row || row.needs_user === 1) return false;
  const granted = JSON.parse(row.scopes) as string[];
  return scopes.every((scope) => granted.includes(scope));
}

/**
 * The connect of `connection` stored new tokens: the calls parked on it that they serve, their rows
 * removed (a call needing scopes still short stays parked, for the next consent).
 */
export function takeParked(sql: SqlStorage, connection: string): string[] {
  const rows = sql
    .exec<{ call_id: string; scopes: string }>(
      "SELECT call_id, scopes FROM parked WHERE connection = ? AND expires_at > ?",
      connection,
      Date.now(),
    )
    .toArray()
    .filter((row) => serves(sql, connection, JSON.parse(row.scopes) as string[]));
  for (const row of rows) sql.exec("DELETE FROM parked WHERE call_id = ?", row.call_id);
  return rows.map((row) => row.call_id);
}

/**
 * The call's run ended waiting: true when it should be answered now, as the user connected while it
 * was parking (the callback came before its row, or answered it before the call waited). Its row goes.
 */
export function parkedReady(sql: SqlStorage, callId: string): boolean {
  const row = sql
    .exec<{ connection: string; scopes: string }>("SELECT connection, scopes FROM parked WHERE call_id = ?", callId)
    .toArray()[0];
  // Taken by a callback already: its answer may have come before the call waited, so answer again.
  if (!row) return true;
  if (!serves(sql, row.connection, JSON.parse(row.scopes) as string[])) return false;
  sql.exec("DELETE FROM parked WHERE call_id = ?", callId);
  return true;
}

/** The call no longer waits (cancelled): its row goes. */
export function unpark(sql: SqlStorage, callId: string): boolean {
  return sql.exec("DELETE FROM parked WHERE call_id = ?", callId).rowsWritten > 0;
}
