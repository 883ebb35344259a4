/**
 * Reads a ledger shard's per-minute metrics (worker/ledger/metrics.ts writes them) summed into the
 * steps of a range. In the telemetry library: the bundle holds only what writes them.
 */
import { BUCKET_COLUMNS, MINUTE_MS } from "../../../src/telemetry/histogram";

/** One tool's or gate's counts over one step of a range (summed over its minutes). */
export interface MetricsRow {
  /** The step's start, in ms. */
  at: number;
  kind: "tool" | "gate";
  name: string;
  calls: number;
  errors: number;
  approvals: number;
  sumMs: number;
  maxMs: number;
  /** The histogram's counts, HISTOGRAM_BUCKETS of them. */
  buckets: number[];
}

/** A step's error codes of one tool. */
export interface MetricsErrorRow {
  at: number;
  tool: string;
  code: string;
  n: number;
}

/** What a shard answers for a range: its rows summed into steps, and the approvals waiting now per tool. */
export interface ShardMetrics {
  rows: MetricsRow[];
  errors: MetricsErrorRow[];
  pending: Record<string, number>;
}

const SUMS = BUCKET_COLUMNS.map((column) => `sum(${column}) AS ${column}`).join(", ");

/** The shard's metrics from `from` to `to` (ms), summed into steps of `stepMs` (a whole number of minutes). */
export function metricsIn(sql: SqlStorage, from: number, to: number, stepMs: number): ShardMetrics {
  // Bound numbers may reach SQLite as REAL, where / would not floor: % casts to INTEGER.
  const step = Math.max(1, Math.round(stepMs / MINUTE_MS));
  const first = Math.floor(from / MINUTE_MS);
  const last = Math.floor(to / MINUTE_MS);
  const rows = sql
    .exec<Record<string, number | string>>(
      `SELECT minute - minute % ? AS step, kind, name, sum(calls) AS calls, sum(errors) AS errors,
         sum(approvals) AS approvals, sum(sum_ms) AS sum_ms, max(max_ms) AS max_ms, ${SUMS}
       FROM metrics WHERE minute BETWEEN ? AND ? GROUP BY step, kind, name`,
      step,
      first,
      last,
    )
    .toArray()
    .map(
      (row): MetricsRow => ({
        at: Number(row.step) * MINUTE_MS,
        kind: row.kind as MetricsRow["kind"],
        name: String(row.name),
        calls: Number(row.calls),
        errors: Number(row.errors),
        approvals: Number(row.approvals),
        sumMs: Number(row.sum_ms),
        maxMs: Number(row.max_ms),
        buckets: BUCKET_COLUMNS.map((column) => Number(row[column])),
      }),
    );
  const errors = sql
    .exec<{ step: number; tool: string; code: string; n: number }>(
      `SELECT minute - minute % ? AS step, tool, code, sum(n) AS n FROM metric_errors
       WHERE minute BETWEEN ? AND ? GROUP BY step, tool, code`,
      step,
      first,
      last,
    )
    .toArray()
    .map((row) => ({ at: row.step * MINUTE_MS, tool: row.tool, code: row.code, n: row.n }));
  const pending: Record<string, number> = {};
  for (const row of sql
    .exec<{ tool: string; n: number }>(
      "SELECT tool, count(*) AS n FROM calls WHERE status = 'pending' AND approval = 'requested' GROUP BY tool",
    )
    .toArray())
    pending[row.tool] = row.n;
  return { rows, errors, pending };
}
