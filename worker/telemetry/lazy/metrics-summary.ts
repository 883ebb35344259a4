import type {
  GateMetrics,
  MetricsRange,
  MetricsSummary,
  Percentiles,
  ToolMetrics,
} from "../../../src/contract/metrics";
import { HISTOGRAM_BUCKETS, MINUTE_MS, quantileOf } from "../../../src/telemetry/histogram";
import type { MetricsRow, ShardMetrics } from "./metrics-read";

/** Each range's length and step. */
export const RANGES: Record<MetricsRange, { spanMs: number; stepMs: number }> = {
  hour: { spanMs: 60 * MINUTE_MS, stepMs: MINUTE_MS },
  day: { spanMs: 24 * 60 * MINUTE_MS, stepMs: 15 * MINUTE_MS },
  week: { spanMs: 7 * 24 * 60 * MINUTE_MS, stepMs: 60 * MINUTE_MS },
};

/** A histogram being summed from shards' rows. */
type Sum = Omit<MetricsRow, "at" | "kind" | "name">;

const empty = (): Sum => ({
  calls: 0,
  errors: 0,
  approvals: 0,
  sumMs: 0,
  maxMs: 0,
  buckets: new Array<number>(HISTOGRAM_BUCKETS).fill(0),
});

function add(sum: Sum, row: MetricsRow): void {
  sum.calls += row.calls;
  sum.errors += row.errors;
  sum.approvals += row.approvals;
  sum.sumMs += row.sumMs;
  sum.maxMs = Math.max(sum.maxMs, row.maxMs);
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) sum.buckets[i]! += row.buckets[i] ?? 0;
}

const round = (ms: number | null) => (ms === null ? null : Math.round(ms * 10) / 10);

function percentiles(sum: Sum): Percentiles & { meanMs: number | null; maxMs: number | null } {
  const counted = sum.buckets.some((n) => n > 0);
  return {
    p50: round(quantileOf(sum.buckets, 0.5, sum.maxMs)),
    p95: round(quantileOf(sum.buckets, 0.95, sum.maxMs)),
    p99: round(quantileOf(sum.buckets, 0.99, sum.maxMs)),
    meanMs: counted ? round(sum.sumMs / sum.buckets.reduce((a, b) => a + b, 0)) : null,
    maxMs: counted ? round(sum.maxMs) : null,
  };
}

/** The steps with calls, oldest first: their counts and p95. */
function stepList(steps: Map<number, Sum>) {
  return [...steps]
    .sort(([a], [b]) => a - b)
    .map(([at, step]) => ({
      at,
      calls: step.calls,
      errors: step.errors,
      p95: round(quantileOf(step.buckets, 0.95, step.maxMs)),
    }));
}

/** One tool's or gate's rows: over the whole range, and per step. */
interface Series {
  total: Sum;
  steps: Map<number, Sum>;
}

function seriesOf(map: Map<string, Series>, name: string): Series {
  let series = map.get(name);
  if (!series) map.set(name, (series = { total: empty(), steps: new Map() }));
  return series;
}

/**
 * The tenant's metrics over a range from every shard's rows (metricsIn): summed per tool, per gate and
 * per step, with percentiles read from the summed histograms (a percentile cannot be averaged).
 */
export function summarize(range: MetricsRange, to: number, shards: ShardMetrics[]): MetricsSummary {
  const { spanMs, stepMs } = RANGES[range];
  const first = Math.floor((to - spanMs) / stepMs) * stepMs + stepMs;
  const tools = new Map<string, Series>();
  const gates = new Map<string, Series>();
  const codes = new Map<string, Record<string, number>>();
  const pending = new Map<string, number>();
  for (const shard of shards) {
    for (const row of shard.rows) {
      const series = seriesOf(row.kind === "tool" ? tools : gates, row.name);
      add(series.total, row);
      let step = series.steps.get(row.at);
      if (!step) series.steps.set(row.at, (step = empty()));
      add(step, row);
    }
    for (const row of shard.errors) {
      const byCode = codes.get(row.tool) ?? {};
      byCode[row.code] = (byCode[row.code] ?? 0) + row.n;
      codes.set(row.tool, byCode);
    }
    for (const [tool, n] of Object.entries(shard.pending)) pending.set(tool, (pending.get(tool) ?? 0) + n);
  }
  // A tool with approvals waiting but no call in the range is still shown.
  for (const tool of pending.keys()) seriesOf(tools, tool);

  const totals = new Map<number, { calls: number; errors: number }>();
  const toolList: ToolMetrics[] = [...tools].map(([tool, { total, steps }]) => {
    for (const [at, step] of steps) {
      const sum = totals.get(at) ?? { calls: 0, errors: 0 };
      sum.calls += step.calls;
      sum.errors += step.errors;
      totals.set(at, sum);
    }
    return {
      tool,
      calls: total.calls,
      errors: total.errors,
      errorCodes: codes.get(tool) ?? {},
      approvals: total.approvals,
      approvalsPending: pending.get(tool) ?? 0,
      latency: percentiles(total),
      steps: stepList(steps),
    };
  });
  const gateList: GateMetrics[] = [...gates].map(([gate, { total, steps }]) => ({
    gate,
    calls: total.calls,
    busy: total.errors,
    wait: percentiles(total),
    steps: stepList(steps).map(({ errors, ...step }) => ({ ...step, busy: errors })),
  }));
  const steps = [];
  for (let at = first; at <= to; at += stepMs) steps.push({ at, ...(totals.get(at) ?? { calls: 0, errors: 0 }) });
  return {
    range,
    from: first,
    to,
    stepMs,
    steps,
    tools: toolList.sort((a, b) => b.calls - a.calls || b.approvalsPending - a.approvalsPending),
    gates: gateList.sort((a, b) => b.calls - a.calls),
    approvalsPending: [...pending.values()].reduce((a, b) => a + b, 0),
  };
}

/**
 * GET /v1/metrics's answer: the range's rows from every shard (`read` asks them all, in parallel),
 * summed. The route stays small in the bundle; this is loaded on the first read.
 */
export async function readMetrics(
  range: MetricsRange,
  read: (from: number, to: number, stepMs: number) => Promise<ShardMetrics[]>,
): Promise<MetricsSummary> {
  const { spanMs, stepMs } = RANGES[range];
  const to = Date.now();
  return summarize(range, to, await read(to - spanMs, to, stepMs));
}
