import type { JsonValue } from "../../src/json";
import { countFinished } from "./metrics";
import type { CallError, CallRecord } from "../../src/result";
import { deleteBlobs, readBlob } from "./blobs";
import type { ShardContext } from "./context";
import { callEvent, eventRecord } from "./events";
import { readRow, readVisibleRow, storeRecord, toEntry, whoOf, type CallRow } from "./records";
import type { ApprovalState, CancelOutcome, DecideOutcome, Decider, Decision, Viewer } from "./types";
import { callKey } from "./waiters";
import { closeWaiting } from "./inputs";

/**
 * A decision on a parked call, by an admin or (approval: "user") the call's own user or key. Only a
 * row still awaiting a decision can be decided, so a second decision (or one after expiry or cancel)
 * is refused. `by` is kept as decided_by (`user:<id>` or `key:<name>`; absent: not recorded) and names
 * the decider in a denial. Approving hands the raw arguments, an owner token and the call's user to
 * the approver, which runs the call through the pipeline as that owner, for that user.
 */
export function decide(
  ctx: ShardContext,
  callId: string,
  decision: Decision,
  reason: string | undefined,
  leaseMs: number,
  by?: Decider,
): DecideOutcome {
  const row = readRow(ctx.sql, callId);
  if (!row) return { ok: false, error: "not_found" };
  if (row.status !== "pending" || row.approval !== "requested")
    return { ok: false, error: "not_pending", entry: toEntry(row) };
  if (decision === "deny") {
    const why = reason ? `: ${reason}` : ".";
    const who = by === undefined || by.admin ? "An admin" : by.by.startsWith("user:") ? "Its user" : "Its caller";
    closePending(
      ctx,
      row,
      "denied",
      { code: "denied", message: `${who} denied the call to "${row.tool}"${why}` },
      reason,
      by?.by,
    );
    return { ok: true, decision: "deny", entry: toEntry(readRow(ctx.sql, callId)!) };
  }
  const now = ctx.now();
  const owner = crypto.randomUUID();
  const args = readBlob(ctx.sql, callId, "args");
  ctx.sql.exec(
    `UPDATE calls SET status = 'running', owner = ?, deadline = ?,
       approval = 'approved', approval_reason = ?, decided_at = ?, decided_by = ?
     WHERE call_id = ?`,
    owner,
    now + leaseMs,
    reason ?? null,
    now,
    by?.by ?? null,
    callId,
  );
  deleteBlobs(ctx.sql, callId, "args");
  const { error: _parked, ...rest } = toEntry(row).record;
  const record: CallRecord = { ...rest, status: "running", permission: "allow" };
  storeRecord(ctx.sql, record, now);
  const who = whoOf(row);
  const decided = { decision: "approved", ...(reason ? { reason } : {}), ...(by ? { decidedBy: by.by } : {}) };
  ctx.emit(callEvent("approval.decided", record, who, now, decided));
  ctx.wakeBy(now + leaseMs);
  const call = {
    id: callId,
    name: row.tool,
    arguments: args === undefined ? undefined : (JSON.parse(args) as JsonValue),
  };
  const approved = who.user ? { call, owner, record, user: who.user } : { call, owner, record };
  return { ok: true, decision: "approve", approved };
}

/** Cancel from anywhere: a pending or waiting call ends here; a running one is flagged for its journal to abort. */
export function cancel(ctx: ShardContext, callId: string, viewer: Viewer, reason: string | undefined): CancelOutcome {
  const row = readVisibleRow(ctx.sql, callId, viewer);
  if (!row) return { ok: false, error: "not_found" };
  if (row.status === "pending") {
    const why = reason ? `: ${reason}` : ".";
    closePending(
      ctx,
      row,
      "cancelled",
      { code: "cancelled", message: `The call was cancelled before it was approved${why}` },
      reason,
    );
    return { ok: true, state: "cancelled", entry: toEntry(readRow(ctx.sql, callId)!) };
  }
  if (row.status === "awaiting_input") {
    const why = reason ? `: ${reason}` : ".";
    closeWaiting(ctx, row, "cancelled", {
      code: "cancelled",
      message: `The call was cancelled while it waited for its caller's input${why}`,
    });
    return { ok: true, state: "cancelled", entry: toEntry(readRow(ctx.sql, callId)!) };
  }
  if (row.status !== "running") return { ok: false, error: "finished", entry: toEntry(row) };
  ctx.sql.exec("UPDATE calls SET cancel_requested = 1 WHERE call_id = ?", callId);
  ctx.waiters.notify(callKey(callId));
  return { ok: true, state: "requested", entry: toEntry(readRow(ctx.sql, callId)!) };
}

/** Pending approvals past their deadline are denied. */
export function expireApprovals(ctx: ShardContext, limit: number): number {
  const rows = ctx.sql
    .exec<CallRow>("SELECT * FROM calls WHERE status = 'pending' AND deadline <= ? LIMIT ?", ctx.now(), limit)
    .toArray();
  for (const row of rows) {
    const message = `Nobody approved the call to "${row.tool}" in time; it was denied and did not run.`;
    closePending(ctx, row, "expired", { code: "denied", message }, undefined);
  }
  return rows.length;
}

function closePending(
  ctx: ShardContext,
  row: CallRow,
  state: ApprovalState,
  error: CallError,
  reason: string | undefined,
  decidedBy?: string,
): void {
  const now = ctx.now();
  const status = state === "cancelled" ? "cancelled" : "denied";
  ctx.sql.exec(
    `UPDATE calls SET deadline = NULL, approval = ?, approval_reason = ?, decided_at = ?, decided_by = ?
     WHERE call_id = ?`,
    state,
    reason ?? null,
    now,
    decidedBy ?? null,
    row.call_id,
  );
  deleteBlobs(ctx.sql, row.call_id, "args");
  const stored = toEntry(row).record;
  const record: CallRecord = {
    ...stored,
    status,
    error,
    durationMs: now - stored.startedAt,
    ...(state === "cancelled" ? {} : { permission: "deny" }),
  };
  storeRecord(ctx.sql, record, now);
  ctx.emit(
    callEvent("approval.decided", record, whoOf(row), now, {
      decision: state,
      ...(reason ? { reason } : {}),
      ...(decidedBy ? { decidedBy } : {}),
    }),
  );
  countFinished(ctx.sql, record, now);
  ctx.emit(callEvent("call.finished", record, whoOf(row), now, { record: eventRecord(record) }));
  ctx.waiters.notify(callKey(row.call_id));
}
