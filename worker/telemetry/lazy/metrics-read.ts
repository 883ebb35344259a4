/**
 * Reads a ledger shard's per-minute metrics (worker/ledger/metrics.ts writes them) summed into the
 * steps of a range. In the telemetry library: the bundle holds only what writes them.
 */
import { HISTOGRAM_BUCKETS, MINUTE_MS } from "../../../src/telemetry/histogram";

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

/** The shard's metrics from `from` to `to` (ms), summed into steps of `stepMs` (a whole number of minutes). */
export function metricsIn(sql: SqlStorage, from: number, to: number, stepMs: number): ShardMetrics {
  // Bound numbers may reach SQLite as REAL, where / would not floor: % casts to INTEGER.
  const step = Math.max(1, Math.round(stepMs / MINUTE_MS));
  const found = sql
    .exec<{
      step: number;
      kind: string;
      name: string;
      part: string;
      n: number;
      errors: number;
      sum_ms: number;
      max_ms: number;
    }>(
      `SELECT minute - minute % ? AS step, kind, name, part, sum(n) AS n, sum(errors) AS errors,
         sum(sum_ms) AS sum_ms, max(max_ms) AS max_ms
       FROM metrics WHERE minute BETWEEN ? AND ? GROUP BY step, kind, name, part`,
      step,
      Math.floor(from / MINUTE_MS),
      Math.floor(to / MINUTE_MS),
    )
    .toArray();
  const rows = new Map<string, MetricsRow>();
  const rowOf = (at: number, kind: MetricsRow["kind"], name: string) => {
    const key = `${at} ${kind} ${name}`;
    let row = rows.get(key);
    if (!row) {
      row = { at, kind, name, calls: 0, errors: 0, approvals: 0, sumMs: 0, maxMs: 0, buckets: [] };
      row.buckets = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
      rows.set(key, row);
    }
    return row;
  };
  const errors: MetricsErrorRow[] = [];
  for (const hit of found) {
    const at = Number(hit.step) * MINUTE_MS;
    const n = Number(hit.n);
    if (hit.kind === "code") errors.push({ at, tool: hit.name, code: hit.part, n });
    else if (hit.kind === "approval") rowOf(at, "tool", hit.name).approvals += n;
    else if (hit.kind === "tool" || hit.kind === "gate") {
      const row = rowOf(at, hit.kind, hit.name);
      row.calls += n;
      row.errors += Number(hit.errors);
      row.sumMs += Number(hit.sum_ms);
      row.maxMs = Math.max(row.maxMs, Number(hit.max_ms));
      row.buckets[Math.min(Number(hit.part), HISTOGRAM_BUCKETS - 1)]! += n;
    }
  }
  const pending: Record<string, number> = {};
  for (const row of sql
    .exec<{ tool: string; n: number }>(
      "SELECT tool, count(*) AS n FROM calls WHERE status = 'pending' AND approval = 'requested' GROUP BY tool",
    )
    .toArray())
    pending[row.tool] = row.n;
  return { rows: [...rows.values()], errors, pending };
}
