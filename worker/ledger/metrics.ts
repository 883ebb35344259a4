/**
 * Per-minute metrics of a shard's calls, rolled up in the write that ends each call: per tool, calls,
 * failures, approvals asked, a latency histogram (src/telemetry/histogram.ts) and errors by code; per
 * gate, calls that asked it a slot, those refused (busy) and a histogram of their wait. Kept
 * METRICS_RETENTION_MS; read (worker/telemetry/lazy/metrics-read.ts) for GET /v1/metrics.
 */
import type { CallRecord } from "../../src/result";
import { BUCKET_COLUMNS, bucketOf, MINUTE_MS } from "../../src/telemetry/histogram";

export { MINUTE_MS };

/** Metrics are kept 8 days: the widest range read is a week. */
export const METRICS_RETENTION_MS = 8 * 24 * 60 * MINUTE_MS;

/**
 * The tables (a ledger migration). metrics: a row per minute (floor(ms / 60000) of when the calls
 * ended), kind (tool | gate) and name (the tool's; the gate's, tool:<name> or group:<name>), with the
 * calls, errors (tool: failed, timed_out or unknown; gate: refused, busy), approvals (tool: calls
 * parked for approval), the sum and max of the durations (gate: of the waits) and the histogram's
 * counts h0 … h40. metric_errors: per minute and tool, how many calls ended with each error code.
 */
export const METRICS_SCHEMA = `CREATE TABLE IF NOT EXISTS metrics (minute INTEGER NOT NULL, kind TEXT NOT NULL,
name TEXT NOT NULL, ${["calls", "errors", "approvals", "sum_ms", "max_ms", ...BUCKET_COLUMNS]
  .map((column) => `${column} NUMERIC NOT NULL DEFAULT 0`)
  .join()}, PRIMARY KEY (minute, kind, name));
CREATE TABLE IF NOT EXISTS metric_errors (minute INTEGER NOT NULL, tool TEXT NOT NULL, code TEXT NOT NULL,
n INTEGER NOT NULL, PRIMARY KEY (minute, tool, code));`;

/** One upsert per bucket (the column it adds to): the statements are built once. */
const UPSERTS = BUCKET_COLUMNS.map(
  (column) =>
    `INSERT INTO metrics (minute, kind, name, calls, errors, sum_ms, max_ms, ${column}) VALUES (?, ?, ?, 1, ?, ?, ?, 1)
     ON CONFLICT (minute, kind, name) DO UPDATE SET calls = calls + 1, errors = errors + excluded.errors,
       sum_ms = sum_ms + excluded.sum_ms, max_ms = max(max_ms, excluded.max_ms), ${column} = ${column} + 1`,
);

/** Failures of the tool or its upstream (a decision, a cancel or bad arguments are not). */
const FAILED = new Set<string>(["failed", "timed_out", "unknown"]);

/**
 * Counts a call that has ended (in the write that ends it). Calls of unknown tools are not counted:
 * their names are the caller's, unbounded.
 */
export function countFinished(sql: SqlStorage, record: CallRecord, now: number): void {
  if (record.source === "") return;
  const minute = Math.floor(now / MINUTE_MS);
  const ms = Math.max(0, record.durationMs);
  const failed = FAILED.has(record.status) ? 1 : 0;
  sql.exec(UPSERTS[bucketOf(ms)]!, minute, "tool", record.tool, failed, ms, ms);
  if (record.error) {
    sql.exec(
      `INSERT INTO metric_errors (minute, tool, code, n) VALUES (?, ?, ?, 1)
       ON CONFLICT (minute, tool, code) DO UPDATE SET n = n + 1`,
      minute,
      record.tool,
      record.error.code,
    );
  }
  const { gate } = record;
  if (gate) {
    const wait = Math.max(0, gate.waitedMs);
    const busy = record.error?.code === "busy" ? 1 : 0;
    sql.exec(UPSERTS[bucketOf(wait)]!, minute, "gate", gate.name, busy, wait, wait);
  }
}

/** Counts a call parked for approval. */
export function countApprovalRequested(sql: SqlStorage, record: CallRecord, now: number): void {
  sql.exec(
    `INSERT INTO metrics (minute, kind, name, approvals) VALUES (?, 'tool', ?, 1)
     ON CONFLICT (minute, kind, name) DO UPDATE SET approvals = approvals + 1`,
    Math.floor(now / MINUTE_MS),
    record.tool,
  );
}

/** Drops metrics older than METRICS_RETENTION_MS (the alarm's sweep). */
export function pruneMetrics(sql: SqlStorage, now: number): void {
  const before = Math.floor((now - METRICS_RETENTION_MS) / MINUTE_MS);
  sql.exec("DELETE FROM metrics WHERE minute < ?", before);
  sql.exec("DELETE FROM metric_errors WHERE minute < ?", before);
}
