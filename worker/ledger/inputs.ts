import { answersOverLimit, ASK_KEY_PATTERN, type InputRequest } from "../../src/ask";
import { countFinished } from "./metrics";
import type { JsonValue } from "../../src/json";
import type { CallError, CallRecord, CallStatus } from "../../src/result";
import { deleteBlobs, readBlob, writeBlob } from "./blobs";
import type { ShardContext } from "./context";
import { callEvent, eventRecord } from "./events";
import { readVisibleRow, storeRecord, toEntry, whoOf, type CallRow } from "./records";
import type { AnswerOutcome, Viewer } from "./types";
import { callKey } from "./waiters";

/**
 * A call waiting for its caller's answers (an MCP task in input_required): the run that asked is over,
 * its record is `awaiting_input` with the open questions in error.inputRequests, and the answers so
 * far wait in a blob beside it. Once every open question is answered, the row runs again under a new
 * owner and the host runs the tool again with all the answers. Unanswered by its deadline, it ends.
 */

/** The run that asked ends waiting: no owner (a late write of that run is refused), a deadline for the answers. */
export function awaitInput(ctx: ShardContext, row: CallRow, record: CallRecord): void {
  const now = ctx.now();
  const deadline = now + ctx.settings.inputTtlMs;
  ctx.sql.exec("UPDATE calls SET owner = NULL, deadline = ? WHERE call_id = ?", deadline, row.call_id);
  storeRecord(ctx.sql, record, now);
  ctx.emit(
    callEvent("call.input_required", record, whoOf(row), now, { record: eventRecord(record), expiresAt: deadline }),
  );
  ctx.waiters.notify(callKey(row.call_id));
  ctx.wakeBy(deadline);
}

/** tasks/update: answers to the open questions are kept; the rest is ignored, as the spec says. */
export function answerInput(
  ctx: ShardContext,
  callId: string,
  viewer: Viewer,
  responses: Readonly<Record<string, JsonValue>>,
  leaseMs: number,
): AnswerOutcome {
  const row = readVisibleRow(ctx.sql, callId, viewer);
  if (!row) return { ok: false, error: "not_found" };
  const stored = toEntry(row).record;
  const open: Record<string, InputRequest> = row.status === "awaiting_input" ? { ...stored.error?.inputRequests } : {};
  const taken = Object.keys(responses).filter((key) => ASK_KEY_PATTERN.test(key) && Object.hasOwn(open, key));
  if (taken.length === 0) return { ok: true, state: "ignored", entry: toEntry(row) };
  const answers = readAnswers(ctx.sql, callId);
  for (const key of taken) {
    answers[key] = responses[key]!;
    delete open[key];
  }
  const json = JSON.stringify(answers);
  const tooLarge = answersOverLimit(json.length);
  if (tooLarge) return { ok: false, error: "too_large", message: tooLarge };
  writeBlob(ctx.sql, callId, "answers", json);
  const now = ctx.now();
  if (Object.keys(open).length > 0) {
    const record: CallRecord = { ...stored, error: { ...stored.error!, inputRequests: open } };
    storeRecord(ctx.sql, record, now);
    ctx.emit(
      callEvent("call.input_required", record, whoOf(row), now, {
        record: eventRecord(record),
        expiresAt: row.deadline,
      }),
    );
    return { ok: true, state: "waiting", entry: toEntry(readVisibleRow(ctx.sql, callId, viewer)!) };
  }
  const owner = crypto.randomUUID();
  ctx.sql.exec(
    "UPDATE calls SET owner = ?, deadline = ?, cancel_requested = 0 WHERE call_id = ?",
    owner,
    now + leaseMs,
    callId,
  );
  const { error: _answered, ...rest } = stored;
  const record: CallRecord = { ...rest, status: "running" };
  storeRecord(ctx.sql, record, now);
  ctx.emit(callEvent("call.started", record, whoOf(row), now, { args: record.args ?? null, attempt: 1 }));
  ctx.waiters.notify(callKey(callId));
  ctx.wakeBy(now + leaseMs);
  return { ok: true, state: "resume", owner, answers, entry: toEntry(readVisibleRow(ctx.sql, callId, viewer)!) };
}

function readAnswers(sql: SqlStorage, callId: string): Record<string, JsonValue> {
  const json = readBlob(sql, callId, "answers");
  return json === undefined ? {} : (JSON.parse(json) as Record<string, JsonValue>);
}

/** A waiting call ends (cancelled, or its answers came too late): its answers go with its wait. */
export function closeWaiting(ctx: ShardContext, row: CallRow, status: CallStatus, error: CallError): void {
  const now = ctx.now();
  ctx.sql.exec("UPDATE calls SET deadline = NULL WHERE call_id = ?", row.call_id);
  deleteBlobs(ctx.sql, row.call_id, "answers");
  const stored = toEntry(row).record;
  const record: CallRecord = { ...stored, status, error, durationMs: now - stored.startedAt };
  storeRecord(ctx.sql, record, now);
  countFinished(ctx.sql, record, now);
  ctx.emit(callEvent("call.finished", record, whoOf(row), now, { record: eventRecord(record) }));
  ctx.waiters.notify(callKey(row.call_id));
}

/** Waiting calls past their deadline end timed_out, saying what went unanswered. */
export function expireInputs(ctx: ShardContext, limit: number): number {
  const rows = ctx.sql
    .exec<CallRow>("SELECT * FROM calls WHERE status = 'awaiting_input' AND deadline <= ? LIMIT ?", ctx.now(), limit)
    .toArray();
  for (const row of rows) {
    const keys = Object.keys(toEntry(row).record.error?.inputRequests ?? {});
    const minutes = Math.round(ctx.settings.inputTtlMs / 60_000);
    const message =
      `Nobody answered what "${row.tool}" asked (${keys.join(", ")}) within ${minutes} min; ` +
      `the call ended without running on.`;
    closeWaiting(ctx, row, "timed_out", { code: "timeout", message });
  }
  return rows.length;
}
