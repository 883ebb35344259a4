/**
 * Per-minute metrics of a shard's calls, rolled up in the write that ends each call (one to three
 * upserts of one statement), read by worker/telemetry/lazy/metrics-read.ts for GET /v1/metrics. A row
 * per minute (floor(ms / 60000) of when the calls ended), kind and name, and part:
 * - tool <name> <bucket>: the tool's calls whose duration fell in the latency bucket
 *   (src/telemetry/histogram.ts), with how many failed (failed, timed_out, unknown), the sum and max;
 * - gate <tool:x | group:x> <bucket>: calls that asked the gate for a slot, by their wait, and how
 *   many were refused (busy);
 * - code <tool> <error code>: calls of the tool that ended with that error code;
 * - approval <tool> "": calls of the tool parked for approval.
 * Kept METRICS_RETENTION_MS.
 */
import type { CallRecord } from "../../src/result";
import { bucketOf, MINUTE_MS } from "../../src/telemetry/histogram";

/** Metrics are kept 8 days: the widest range read is a week. */
export const METRICS_RETENTION_MS = 8 * 24 * 60 * MINUTE_MS;

/** The table (a ledger migration). */
export const METRICS_SCHEMA = `CREATE TABLE IF NOT EXISTS metrics (minute INTEGER, kind TEXT, name TEXT, part TEXT,
n INTEGER, errors INTEGER, sum_ms REAL, max_ms REAL, PRIMARY KEY (minute, kind, name, part)) WITHOUT ROWID`;

const UPSERT = `INSERT INTO metrics VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + 1,
errors = errors + excluded.errors, sum_ms = sum_ms + excluded.sum_ms, max_ms = max(max_ms, excluded.max_ms)`;

/** Failures of the tool or its upstream (a decision, a cancel or bad arguments are not). */
const FAILED = new Set<string>(["failed", "timed_out", "unknown"]);

/** The slice of a Durable Object's SqlStorage the rollup writes with (the bench runs it over node:sqlite). */
export interface MetricsSql {
  exec(query: string, ...bindings: (string | number | null)[]): unknown;
}

function count(sql: MetricsSql, now: number, kind: string, name: string, part: string, errors: number, ms = 0) {
  sql.exec(UPSERT, Math.floor(now / MINUTE_MS), kind, name, part, errors, ms, ms);
}

/**
 * Counts a call that has ended (in the write that ends it). Calls of unknown tools are not counted:
 * their names are the caller's, unbounded.
 */
export function countFinished(sql: MetricsSql, record: CallRecord, now: number): void {
  if (record.source === "") return;
  const ms = Math.max(0, record.durationMs);
  count(sql, now, "tool", record.tool, String(bucketOf(ms)), FAILED.has(record.status) ? 1 : 0, ms);
  if (record.error) count(sql, now, "code", record.tool, record.error.code, 0);
  const { gate } = record;
  if (gate) {
    const wait = Math.max(0, gate.waitedMs);
    count(sql, now, "gate", gate.name, String(bucketOf(wait)), record.error?.code === "busy" ? 1 : 0, wait);
  }
}

/** Counts a call parked for approval. */
export function countApprovalRequested(sql: MetricsSql, record: CallRecord, now: number): void {
  count(sql, now, "approval", record.tool, "", 0);
}

/** Drops metrics older than METRICS_RETENTION_MS (the alarm's sweep). */
export function pruneMetrics(sql: MetricsSql, now: number): void {
  sql.exec("DELETE FROM metrics WHERE minute < ?", Math.floor((now - METRICS_RETENTION_MS) / MINUTE_MS));
}
