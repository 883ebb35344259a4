/**
 * The tenant's per-minute metrics as OTLP metrics, and their export (worker/ledger/metrics-export.ts sends
 * them from the tenant's ledger map object's alarm). Every point covers one finished minute (DELTA).
 */
import { BUCKET_BOUNDS_MS, MINUTE_MS } from "../../../src/telemetry/histogram";
import {
  encodeMetricsJson,
  encodeMetricsProtobuf,
  type HistogramPoint,
  type NumberPoint,
  type OtlpMetric,
} from "../../../src/telemetry/otlp-metrics";
import type { MetricsExportConfig } from "../config";
import { exportSource, postOtlp } from "./exporter";
import type { MetricsRow, ShardMetrics } from "./metrics-read";

const BOUNDS_S = BUCKET_BOUNDS_MS.map((ms) => ms / 1000);

/** Every shard's rows of one minute and name, summed. */
function summed(shards: readonly ShardMetrics[], kind: MetricsRow["kind"]): MetricsRow[] {
  const rows = new Map<string, MetricsRow>();
  for (const shard of shards)
    for (const row of shard.rows) {
      if (row.kind !== kind) continue;
      const key = `${row.at} ${row.name}`;
      const sum = rows.get(key);
      if (!sum) {
        rows.set(key, { ...row, buckets: [...row.buckets] });
        continue;
      }
      sum.calls += row.calls;
      sum.errors += row.errors;
      sum.approvals += row.approvals;
      sum.sumMs += row.sumMs;
      sum.maxMs = Math.max(sum.maxMs, row.maxMs);
      for (const [i, n] of row.buckets.entries()) sum.buckets[i]! += n;
    }
  return [...rows.values()].sort((a, b) => a.at - b.at || a.name.localeCompare(b.name));
}

const minuteOf = (at: number) => ({ startMs: at, endMs: at + MINUTE_MS });

function histogram(row: MetricsRow, attributes: Record<string, string>): HistogramPoint {
  return {
    attributes,
    ...minuteOf(row.at),
    count: row.calls,
    sum: row.sumMs / 1000,
    max: row.maxMs / 1000,
    bucketCounts: row.buckets,
    bounds: BOUNDS_S,
  };
}

/**
 * The OTLP metrics of the shards' minutes (each shard read with one-minute steps), and the approvals
 * pending at `now`. Names are toolgate's own (no semantic convention covers a tool runtime's calls yet);
 * attributes follow the GenAI and general conventions (gen_ai.tool.name, error.type).
 */
export function metricsOf(shards: readonly ShardMetrics[], now: number): OtlpMetric[] {
  const tools = summed(shards, "tool");
  const gates = summed(shards, "gate");
  const tool = (row: MetricsRow) => ({ "gen_ai.tool.name": row.name });
  const gate = (row: MetricsRow) => ({ "toolgate.gate": row.name });
  const counted = (
    rows: MetricsRow[],
    value: (row: MetricsRow) => number,
    attributes: (row: MetricsRow) => Record<string, string>,
  ) =>
    rows.flatMap((row): NumberPoint[] =>
      value(row) > 0 ? [{ attributes: attributes(row), ...minuteOf(row.at), value: value(row) }] : [],
    );
  const errors = shards
    .flatMap((shard) => shard.errors)
    .map((e) => ({
      attributes: { "gen_ai.tool.name": e.tool, "error.type": e.code },
      ...minuteOf(e.at),
      value: e.n,
    }));
  const pending = new Map<string, number>();
  for (const shard of shards)
    for (const [name, n] of Object.entries(shard.pending)) pending.set(name, (pending.get(name) ?? 0) + n);
  const metrics: OtlpMetric[] = [
    {
      name: "toolgate.tool.duration",
      unit: "s",
      description: "Duration of the tool calls that ended, by tool",
      kind: "histogram",
      points: tools.filter((row) => row.calls > 0).map((row) => histogram(row, tool(row))),
    },
    {
      name: "toolgate.tool.failures",
      unit: "{call}",
      description: "Calls that failed, timed out or ended unknown, by tool",
      kind: "sum",
      points: counted(tools, (row) => row.errors, tool),
    },
    {
      name: "toolgate.tool.errors",
      unit: "{call}",
      description: "Calls that ended with an error, by tool and error code",
      kind: "sum",
      points: errors,
    },
    {
      name: "toolgate.approval.requests",
      unit: "{call}",
      description: "Calls parked for approval, by tool",
      kind: "sum",
      points: counted(tools, (row) => row.approvals, tool),
    },
    {
      name: "toolgate.gate.wait",
      unit: "s",
      description: "Wait for a concurrency gate's slot, by gate",
      kind: "histogram",
      points: gates.filter((row) => row.calls > 0).map((row) => histogram(row, gate(row))),
    },
    {
      name: "toolgate.gate.refusals",
      unit: "{call}",
      description: "Calls a full gate refused (busy), by gate",
      kind: "sum",
      points: counted(gates, (row) => row.errors, gate),
    },
    {
      name: "toolgate.approval.pending",
      unit: "{call}",
      description: "Calls waiting for an approval now, by tool",
      kind: "gauge",
      points: [...pending].map(([name, value]) => ({
        attributes: { "gen_ai.tool.name": name },
        startMs: now,
        endMs: now,
        value,
      })),
    },
  ];
  return metrics.filter((metric) => metric.points.length > 0);
}

/** Where a tenant's metrics go, with the header values read from its Worker secrets. */
export interface MetricsTarget {
  tenant: string;
  config: MetricsExportConfig;
  headers: Record<string, string>;
  /** Minutes skipped so far (the collector was down longer than the catch-up): a resource attribute. */
  droppedMinutes: number;
}

/** Sends one export; throws when the collector refuses it, fails or runs out of time. */
export async function sendMetrics(metrics: readonly OtlpMetric[], target: MetricsTarget): Promise<void> {
  const { config } = target;
  const dropped = "toolgate.telemetry.dropped_minutes";
  const source = exportSource(config.serviceName, target.tenant, dropped, target.droppedMinutes);
  await postOtlp(
    config,
    target.headers,
    () => encodeMetricsJson(metrics, source),
    () => encodeMetricsProtobuf(metrics, source),
  );
}
