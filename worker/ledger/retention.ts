import type { CallRecord } from "../../src/result";
import { countFinished, pruneMetrics } from "./metrics";
import { deleteBlobs } from "./blobs";
import { expireApprovals } from "./approvals";
import { expireInputs } from "./inputs";
import type { ShardContext } from "./context";
import { callEvent, eventRecord } from "./events";
import { storeRecord, toEntry, TERMINAL_SQL, whoOf, type CallRow } from "./records";
import { nextAskExpiry, pruneAsks } from "./asks";
import { nextSessionExpiry, pruneSessions } from "./sessions";
import { callKey } from "./waiters";

/** Most rows one alarm run touches per kind of work; more is left for an immediate next run. */
const BATCH = 500;

/**
 * The alarm's work: leases that ran out become `unknown` (never re-run: the tool may have had its
 * effect), approvals that ran out are denied, waits for a caller's input that ran out end timed_out,
 * old records are pruned. Returns when to run next, or
 * null when the shard holds nothing that will ever need it.
 */
export function sweep(ctx: ShardContext): number | null {
  const now = ctx.now();
  const busy =
    expireLeases(ctx, BATCH) === BATCH ||
    expireApprovals(ctx, BATCH) === BATCH ||
    expireInputs(ctx, BATCH) === BATCH ||
    prune(ctx) === BATCH;
  ctx.sql.exec("DELETE FROM tokens WHERE expires_at <= ?", now);
  pruneSessions(ctx.sql, now);
  pruneAsks(ctx.sql, now);
  pruneMetrics(ctx.sql, now);
  if (busy) return now;
  const deadline = ctx.sql
    .exec<{ at: number | null }>("SELECT min(deadline) AS at FROM calls WHERE deadline IS NOT NULL")
    .one().at;
  const any = ctx.sql.exec<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM calls LIMIT 1)").one().n > 0;
  const pruneAt = any ? now + ctx.settings.pruneIntervalMs : null;
  const times = [deadline, pruneAt, nextSessionExpiry(ctx.sql), nextAskExpiry(ctx.sql)].filter(
    (at): at is number => at !== null,
  );
  return times.length === 0 ? null : Math.min(...times);
}

function expireLeases(ctx: ShardContext, limit: number): number {
  const rows = ctx.sql
    .exec<CallRow>("SELECT * FROM calls WHERE status = 'running' AND deadline <= ? LIMIT ?", ctx.now(), limit)
    .toArray();
  for (const row of rows) {
    const stored = toEntry(row).record;
    const message =
      `The outcome of this call is unknown: whatever ran it stopped before reporting back. The tool may or may not ` +
      `have had its effect; it was not run again. Check before calling it again with a new id.`;
    const record: CallRecord = {
      ...stored,
      status: "unknown",
      error: { code: "internal", message },
      durationMs: ctx.now() - stored.startedAt,
    };
    ctx.sql.exec("UPDATE calls SET deadline = NULL WHERE call_id = ?", row.call_id);
    storeRecord(ctx.sql, record, ctx.now());
    // A re-run of a call guessed unknown before was counted then.
    if (row.counted !== 1) countFinished(ctx.sql, record, ctx.now());
    ctx.emit(callEvent("call.finished", record, whoOf(row), ctx.now(), { record: eventRecord(record) }));
    ctx.waiters.notify(callKey(row.call_id));
  }
  return rows.length;
}

/** Deletes finished records past the age limit, then the oldest beyond the count limit. */
export function prune(ctx: ShardContext): number {
  const { sql, settings } = ctx;
  const old = sql
    .exec<{ call_id: string }>(
      `DELETE FROM calls WHERE call_id IN (
         SELECT call_id FROM calls WHERE status IN ${TERMINAL_SQL} AND started_at < ? LIMIT ?
       )
       RETURNING call_id`,
      ctx.now() - settings.retentionMs,
      BATCH,
    )
    .toArray();
  let removed = old;
  const finished = sql.exec<{ n: number }>(`SELECT count(*) AS n FROM calls WHERE status IN ${TERMINAL_SQL}`).one().n;
  const excess = Math.min(finished - settings.retentionCount, BATCH - old.length);
  if (excess > 0) {
    const extra = sql
      .exec<{ call_id: string }>(
        `DELETE FROM calls WHERE call_id IN (SELECT call_id FROM calls WHERE status IN ${TERMINAL_SQL}
           ORDER BY started_at, call_id LIMIT ?) RETURNING call_id`,
        excess,
      )
      .toArray();
    removed = removed.concat(extra);
  }
  for (const { call_id } of removed) deleteBlobs(sql, call_id);
  return removed.length;
}
