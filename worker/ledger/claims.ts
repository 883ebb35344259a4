import type { JsonValue } from "../../src/json";
import { countApprovalRequested, countFinished } from "./metrics";
import type { CallRecord, Progress } from "../../src/result";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import { deleteBlobs, writeBlob } from "./blobs";
import type { ShardContext } from "./context";
import { callEvent, callEventJson, eventRecord, eventRecordJson, type EventRow } from "./events";
import { fullRecord, insertNewRow, insertRow, readRow, storeRecord, TERMINAL, whoOf, type CallRow } from "./records";
import type { BeginInput, Claim, CommitInput, LedgerWrite, WatchOutcome, WriteOutcome } from "./types";
import { takenConflict } from "./taken";
import { awaitInput } from "./inputs";
import { callKey } from "./waiters";
import { storedUser, type CallWho } from "./viewer";

/**
 * The check-and-write that makes call ids idempotent. Synchronous SQL inside one Durable Object, so
 * no other request can interleave between reading the row and writing it.
 */
export function claim(ctx: ShardContext, input: BeginInput): Claim {
  const row = readRow(ctx.sql, input.callId);
  if (!row) {
    if (input.status === "pending") park(ctx, input);
    else insertRunning(ctx, input);
    return { kind: "new" };
  }
  const taken = takenBy(row, input.callId, input, input.argsHash, input.owner);
  if (taken) return taken;
  if (row.status === "running") return row.owner === input.owner ? refresh(ctx, row, input) : { kind: "wait" };
  if (row.status === "pending") {
    if (!input.approved || input.status !== "running") return { kind: "replay", record: fullRecord(ctx.sql, row) };
    return start(ctx, row, input);
  }
  if (row.status === "unknown" && input.rerunUnknown && input.status === "running") return start(ctx, row, input);
  return { kind: "replay", record: fullRecord(ctx.sql, row) };
}

/**
 * The id belongs to the key and user that first used it: another learns only that it is taken, never
 * its outcome (an approver holds the row's owner token instead of the caller's key). The same id with
 * other arguments is another call.
 */
function takenBy(
  row: CallRow,
  callId: string,
  who: CallWho,
  argsHash: string,
  owner: string | null,
): Claim | undefined {
  const sameOwner = owner !== null && row.owner === owner;
  return takenConflict(
    callId,
    { key: row.key_name, userId: row.user_id, tool: row.tool, argsHash: row.args_hash },
    { key: who.key, userId: who.user?.id ?? null },
    argsHash,
    sameOwner,
  );
}

/**
 * The terminal record of a read-only call whose claim was deferred (it ended before its journal
 * claimed the id): stored with its started and finished events in one check-and-write if the id is
 * free. A taken id answers as a duplicate begin would: replay, conflict, or wait for the running one.
 */
export function commit(ctx: ShardContext, input: CommitInput): Claim {
  const { record } = input;
  // A new id (the common case) is inserted without being looked up first.
  if (
    TERMINAL.has(record.status) &&
    insertFinished(
      ctx,
      record,
      { argsHash: input.argsHash, key: input.key, user: storedUser(input.user), surface: input.surface ?? null },
      true,
    )
  )
    return { kind: "new" };
  const row = readRow(ctx.sql, record.callId);
  if (!row) throw new Error(`commit() needs a terminal record, got ${record.status}`);
  const taken = takenBy(row, record.callId, input, input.argsHash, null);
  if (taken) return taken;
  return row.status === "running" ? { kind: "wait" } : { kind: "replay", record: fullRecord(ctx.sql, row) };
}

/**
 * A new row holding a terminal record, with its finished event (and, for a call that really ran, its
 * started event first) and a wake-up for anyone waiting on the id. False, with nothing written, when
 * the id has a row.
 */
function insertFinished(
  ctx: ShardContext,
  record: CallRecord,
  who: { argsHash: string; key: string | null; user: UserRef | null; surface: CallSurface | null },
  ran: boolean,
): boolean {
  const now = ctx.now();
  const { key } = who;
  const stored = insertNewRow(ctx.sql, record, { ...who, deadline: null, owner: null, approval: null }, now);
  if (!stored) return false;
  countFinished(ctx.sql, record, now);
  // The record is serialised once, for its row; its events splice that JSON in, and go in one INSERT.
  const shown = eventRecordJson(record, stored);
  const finished: EventRow = {
    type: "call.finished",
    key,
    userId: who.user?.id ?? null,
    json: callEventJson("call.finished", record, who, now, `"record":${shown}`),
  };
  if (!ran) ctx.emitRows([finished]);
  else {
    const args =
      shown === stored.json
        ? JSON.stringify(record.args ?? null)
        : JSON.stringify(eventArgs(record, JSON.parse(shown) as JsonValue));
    ctx.emitRows([
      {
        type: "call.started",
        key,
        userId: who.user?.id ?? null,
        json: callEventJson("call.started", record, who, now, `"args":${args},"attempt":1`),
      },
      finished,
    ]);
  }
  ctx.waiters.notify(callKey(record.callId));
  return true;
}

function insertRunning(ctx: ShardContext, input: BeginInput): void {
  const deadline = ctx.now() + input.leaseMs;
  const record: CallRecord = { ...input.record, status: "running" };
  insertRow(
    ctx.sql,
    record,
    {
      argsHash: input.argsHash,
      deadline,
      owner: input.owner,
      approval: null,
      key: input.key,
      user: storedUser(input.user),
      surface: input.surface ?? null,
    },
    ctx.now(),
  );
  ctx.emit(callEvent("call.started", record, input, ctx.now(), { args: eventArgs(record), attempt: 1 }));
  ctx.wakeBy(deadline);
}

/** Parked for approval: the raw arguments wait in a blob until the decision. */
function park(ctx: ShardContext, input: BeginInput): void {
  const expiresAt = ctx.now() + ctx.settings.approvalTtlMs;
  const message =
    `The call ${input.callId} to "${input.tool}" is awaiting an admin's approval; its outcome will be reported. ` +
    `Do not call it again.`;
  const record: CallRecord = {
    ...input.record,
    status: "pending",
    error: input.record.error ?? { code: "approval_required", message },
  };
  insertRow(
    ctx.sql,
    record,
    {
      argsHash: input.argsHash,
      deadline: expiresAt,
      owner: null,
      approval: "requested",
      key: input.key,
      user: storedUser(input.user),
      surface: input.surface ?? null,
    },
    ctx.now(),
  );
  if (input.args !== undefined) writeBlob(ctx.sql, input.callId, "args", JSON.stringify(input.args));
  countApprovalRequested(ctx.sql, record, ctx.now());
  ctx.emit(callEvent("approval.requested", record, input, ctx.now(), { record: eventRecord(record), expiresAt }));
  ctx.wakeBy(expiresAt);
}

/** The same claimant again (an approver taking its approved row, or a retried begin): keep its lease fresh. */
function refresh(ctx: ShardContext, row: CallRow, input: BeginInput): Claim {
  const deadline = ctx.now() + input.leaseMs;
  ctx.sql.exec("UPDATE calls SET deadline = ? WHERE call_id = ?", deadline, input.callId);
  const record: CallRecord = { ...input.record, status: "running" };
  storeRecord(ctx.sql, record, ctx.now());
  // An approver taking the row the decision gave it: this is when the call starts.
  if (input.approved)
    ctx.emit(callEvent("call.started", record, whoOf(row), ctx.now(), { args: eventArgs(record), attempt: 1 }));
  ctx.wakeBy(deadline);
  return { kind: "new" };
}

/** pending → running (approved through the pipeline) or unknown → running (an idempotent tool's re-run). */
function start(ctx: ShardContext, row: CallRow, input: BeginInput): Claim {
  const now = ctx.now();
  const deadline = now + input.leaseMs;
  const wasRequested = row.approval === "requested";
  ctx.sql.exec(
    `UPDATE calls SET status = 'running', owner = ?, deadline = ?, cancel_requested = 0,
       counted = CASE WHEN status = 'unknown' THEN 1 ELSE counted END,
       approval = CASE WHEN approval = 'requested' THEN 'approved' ELSE approval END,
       decided_at = CASE WHEN approval = 'requested' THEN ? ELSE decided_at END
     WHERE call_id = ?`,
    input.owner,
    deadline,
    now,
    row.call_id,
  );
  deleteBlobs(ctx.sql, row.call_id, "args");
  const record: CallRecord = { ...input.record, status: "running" };
  storeRecord(ctx.sql, record, now);
  const who = whoOf(row);
  if (wasRequested) ctx.emit(callEvent("approval.decided", record, who, now, { decision: "approved" }));
  ctx.emit(callEvent("call.started", record, who, now, { args: eventArgs(record), attempt: 1 }));
  ctx.wakeBy(deadline);
  return { kind: "new" };
}

/** The claimant's terminal record. Refused for anyone but the owner, and once the row is final. */
export function complete(ctx: ShardContext, owner: string, record: CallRecord): boolean {
  const row = readRow(ctx.sql, record.callId);
  const waits = record.status === "awaiting_input";
  if (!row || row.owner !== owner || !(TERMINAL.has(record.status) || waits)) return false;
  // `unknown` was the alarm's guess that the owner died; the owner's own late outcome is the truth.
  if (row.status !== "running" && row.status !== "unknown") return false;
  // A task's run that asked its caller: the call waits for the answers (inputs.ts).
  if (waits) return (awaitInput(ctx, row, record), true);
  ctx.sql.exec("UPDATE calls SET deadline = NULL WHERE call_id = ?", record.callId);
  // A call that waited for answers keeps them no longer than its run.
  deleteBlobs(ctx.sql, record.callId, "answers");
  storeRecord(ctx.sql, record, ctx.now());
  // A call the alarm guessed `unknown` was counted then, even when an idempotent tool's re-run follows.
  if (row.status === "running" && row.counted !== 1) countFinished(ctx.sql, record, ctx.now());
  ctx.emit(callEvent("call.finished", record, whoOf(row), ctx.now(), { record: eventRecord(record) }));
  ctx.waiters.notify(callKey(record.callId));
  return true;
}

/** A call that ended before claiming its id (invalid, denied, unknown tool): recorded unless the id is taken. */
export function recordUnclaimed(
  ctx: ShardContext,
  record: CallRecord,
  key: string | null,
  surface: CallSurface | null = null,
  user: UserRef | null = null,
): boolean {
  const who = { argsHash: "", key, user: storedUser(user), surface };
  return TERMINAL.has(record.status) && insertFinished(ctx, record, who, false);
}

/** One write of a group (Ledger.writeMany), as its own method would do it. */
export function applyWrite(ctx: ShardContext, write: LedgerWrite): WriteOutcome {
  switch (write.op) {
    case "begin":
      return claim(ctx, write.input);
    case "commit":
      return commit(ctx, write.input);
    case "complete":
      return { kind: "done", ok: complete(ctx, write.owner, write.record) };
    case "record":
      return {
        kind: "done",
        ok: recordUnclaimed(ctx, write.record, write.key, write.surface ?? null, write.user ?? null),
      };
  }
}

/**
 * The latest progress of the owner's running call: kept in its record (GET shows it, a console can draw
 * it) and sent to its watchers as call.progress. Refused once the call is not the owner's running call.
 */
export function noteProgress(ctx: ShardContext, callId: string, owner: string, progress: Progress): boolean {
  const row = readRow(ctx.sql, callId);
  if (row?.status !== "running" || row.owner !== owner) return false;
  const now = ctx.now();
  const record: CallRecord = { ...fullRecord(ctx.sql, row), progress };
  storeRecord(ctx.sql, record, now);
  ctx.emit(callEvent("call.progress", record, whoOf(row), now, { progress: progress as unknown as JsonValue }));
  return true;
}

/** A running call's lease renewal; also how its journal learns of a cancel request. */
export function renew(ctx: ShardContext, callId: string, owner: string, leaseMs: number): WatchOutcome {
  const state = watchState(readRow(ctx.sql, callId), owner);
  if (state.done) return state;
  const deadline = ctx.now() + leaseMs;
  ctx.sql.exec("UPDATE calls SET deadline = ? WHERE call_id = ?", deadline, callId);
  ctx.wakeBy(deadline);
  return state;
}

/** What the owner's watcher learns from the row: done once it is no longer this owner's running call. */
export function watchState(row: CallRow | undefined, owner: string): WatchOutcome {
  if (row?.status !== "running" || row.owner !== owner) return { cancel: false, done: true };
  return { cancel: row.cancel_requested === 1, done: false };
}

/** The arguments as events show them; `shown` is the record's event form when already made. */
function eventArgs(record: CallRecord, shown: JsonValue = eventRecord(record)) {
  return (shown as unknown as CallRecord).args ?? null;
}
