import type { ShardContext } from "./context";

/**
 * Questions a legacy MCP session's tools/call puts to its client (worker/mcp/v2025/legacy-ask.ts), on the
 * shard of the call's own id. The request waiting for the answers and the POST bringing one may run
 * in different isolates: they meet only here. One row per asking tools/call, while it asks; a
 * cancel that comes before the row leaves a row that says so (the call's next round then stops).
 *
 * Not the task's store (inputs.ts), on purpose: a task is one record that waits (`awaiting_input`),
 * its answers keyed by question and kept until its deadline. A legacy call's rounds are records of
 * their own that have ended (`input_required`) while one request waits in an isolate; what it waits
 * for are JSON-RPC responses keyed by request id (an error response is an answer too), and a cancel
 * may come before any question, for a call id no record has yet. Folding these into the record's
 * status would make rounds records that wait, and still need the cancel marker: not fewer parts.
 */

/** What the waiting request reads: each question's answer (a JSON-RPC response's JSON) or null, and a cancel. */
export interface AskState {
  /** By the JSON-RPC id of the request sent to the client; null while it is not answered. */
  answers: Record<string, string | null>;
  /** Why the client cancelled the call (notifications/cancelled, DELETE of its session); null. */
  cancelled: string | null;
}

export type AskAnswerOutcome = "accepted" | "repeated" | "unknown";

type AskRow = { round_call_id: string; waiting: string; cancelled: string | null };

/** Woken when an answer or a cancel reaches a call's questions. */
export const askKey = (callId: string) => `ask:${callId}`;

function readRow(sql: SqlStorage, callId: string): AskRow | undefined {
  return sql
    .exec<AskRow>("SELECT round_call_id, waiting, cancelled FROM mcp_asks WHERE call_id = ?", callId)
    .toArray()[0];
}

export function readAsks(sql: SqlStorage, callId: string): AskState | null {
  const row = readRow(sql, callId);
  return row ? { answers: JSON.parse(row.waiting) as AskState["answers"], cancelled: row.cancelled } : null;
}

export const allAnswered = (state: AskState) => Object.values(state.answers).every((answer) => answer !== null);

/** The questions of a round, asked as `roundCallId`: answers the cancel that came before them, if one did. */
export function openAsks(
  sql: SqlStorage,
  callId: string,
  roundCallId: string,
  askIds: readonly string[],
  expiresAt: number,
): string | null {
  const waiting = JSON.stringify(Object.fromEntries(askIds.map((id) => [id, null])));
  const row = sql
    .exec<{ cancelled: string | null }>(
      `INSERT INTO mcp_asks (call_id, round_call_id, waiting, cancelled, expires_at) VALUES (?, ?, ?, NULL, ?)
       ON CONFLICT (call_id) DO UPDATE SET round_call_id = excluded.round_call_id, waiting = excluded.waiting,
         expires_at = excluded.expires_at
       RETURNING cancelled`,
      callId,
      roundCallId,
      waiting,
      expiresAt,
    )
    .one();
  return row.cancelled;
}

/** Every question answered: the call goes on as `roundCallId`, which a cancel from now on reaches. */
export function startRound(sql: SqlStorage, callId: string, roundCallId: string): void {
  sql.exec("UPDATE mcp_asks SET round_call_id = ?, waiting = '{}' WHERE call_id = ?", roundCallId, callId);
}

/** The client's response to the request `askId` of the call; the first one counts. */
export function answerAsk(ctx: ShardContext, callId: string, askId: string, response: string): AskAnswerOutcome {
  const row = readRow(ctx.sql, callId);
  const answers = row ? (JSON.parse(row.waiting) as AskState["answers"]) : {};
  if (!row || !Object.hasOwn(answers, askId)) return "unknown";
  if (answers[askId] !== null) return "repeated";
  answers[askId] = response;
  ctx.sql.exec("UPDATE mcp_asks SET waiting = ? WHERE call_id = ?", JSON.stringify(answers), callId);
  ctx.waiters.notify(askKey(callId));
  return "accepted";
}

/**
 * The client cancelled the call: its questions stop waiting, and the round it runs as is answered
 * so the caller can cancel that too. A call that has not asked yet gets a row saying so, kept until
 * `expiresAt`, so questions it asks a moment later are not sent.
 */
export function cancelAsks(ctx: ShardContext, callId: string, reason: string, expiresAt: number): string {
  const row = ctx.sql
    .exec<{ round_call_id: string }>(
      `INSERT INTO mcp_asks (call_id, round_call_id, waiting, cancelled, expires_at) VALUES (?, ?, '{}', ?, ?)
       ON CONFLICT (call_id) DO UPDATE SET cancelled = coalesce(cancelled, excluded.cancelled)
       RETURNING round_call_id`,
      callId,
      callId,
      reason,
      expiresAt,
    )
    .one();
  ctx.waiters.notify(askKey(callId));
  return row.round_call_id;
}

/** DELETE of a session: the questions of its calls (ids starting with `prefix`) stop waiting. */
export function cancelAsksWithPrefix(ctx: ShardContext, prefix: string, reason: string): void {
  const ids = ctx.sql
    .exec<{ call_id: string }>(
      "UPDATE mcp_asks SET cancelled = coalesce(cancelled, ?) WHERE substr(call_id, 1, ?) = ? RETURNING call_id",
      reason,
      prefix.length,
      prefix,
    )
    .toArray();
  for (const { call_id } of ids) ctx.waiters.notify(askKey(call_id));
}

export function closeAsks(sql: SqlStorage, callId: string): void {
  sql.exec("DELETE FROM mcp_asks WHERE call_id = ?", callId);
}

/** Rows of calls that stopped asking without closing them (their isolate went away). */
export function pruneAsks(sql: SqlStorage, now: number): void {
  sql.exec("DELETE FROM mcp_asks WHERE expires_at <= ?", now);
}

export function nextAskExpiry(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>("SELECT min(expires_at) AS at FROM mcp_asks").one().at;
}
