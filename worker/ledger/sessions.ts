import { cancel } from "./approvals";
import type { ShardContext } from "./context";
import type { Viewer } from "./types";

/**
 * What a legacy MCP session keeps beyond its id (worker/mcp/v2025/session.ts): the log level its client
 * set and whether it was deleted. A row exists only once one of them was written; it is kept until
 * the session id expires, so a deleted id stays refused for as long as it could be presented.
 */
export interface McpSessionState {
  /** The minimum level of notifications/message; null until logging/setLevel. */
  level: string | null;
  ended: boolean;
}

type SessionRow = { level: string | null; ended: number };

export function readSession(sql: SqlStorage, ref: string): McpSessionState {
  const row = sql.exec<SessionRow>("SELECT level, ended FROM mcp_sessions WHERE ref = ?", ref).toArray()[0];
  return { level: row?.level ?? null, ended: row?.ended === 1 };
}

export function writeSessionLevel(sql: SqlStorage, ref: string, level: string, expiresAt: number): void {
  sql.exec(
    `INSERT INTO mcp_sessions (ref, level, ended, expires_at) VALUES (?, ?, 0, ?)
     ON CONFLICT (ref) DO UPDATE SET level = excluded.level`,
    ref,
    level,
    expiresAt,
  );
}

export function writeSessionEnded(sql: SqlStorage, ref: string, expiresAt: number): void {
  sql.exec(
    `INSERT INTO mcp_sessions (ref, level, ended, expires_at) VALUES (?, NULL, 1, ?)
     ON CONFLICT (ref) DO UPDATE SET ended = 1`,
    ref,
    expiresAt,
  );
}

/** Rows of sessions that expired: their ids are refused by their own expiry now. */
export function pruneSessions(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM mcp_sessions WHERE expires_at <= ?", now);
}

export function nextSessionExpiry(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>("SELECT min(expires_at) AS at FROM mcp_sessions").one().at;
}

/**
 * Requests the cancel of the viewer's running calls whose ids start with `prefix` (a session's calls,
 * see worker/mcp/v2025/call-ids.ts): their journals abort them like any cancelled call. Returns their ids.
 */
export function cancelRunningWithPrefix(ctx: ShardContext, prefix: string, viewer: Viewer, reason: string): string[] {
  const ids = ctx.sql
    .exec<{ call_id: string }>(
      "SELECT call_id FROM calls WHERE status = 'running' AND substr(call_id, 1, ?) = ?",
      prefix.length,
      prefix,
    )
    .toArray()
    .map((row) => row.call_id);
  return ids.filter((id) => cancel(ctx, id, viewer, reason).ok);
}
