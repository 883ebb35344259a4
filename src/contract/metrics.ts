/** A range GET /v1/metrics reads: the last hour (1-minute steps), day (15 minutes) or week (1 hour). */
export type MetricsRange = "hour" | "day" | "week";

/**
 * Percentiles in ms, read from a histogram whose bounds grow by √2: never below the true value and at
 * most 41% above it. Null without calls.
 */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** All calls in one step of the range. */
export interface MetricsStep {
  /** The step's start (ms since the epoch). */
  at: number;
  calls: number;
  /** Calls that failed, timed out or ended unknown. */
  errors: number;
}

/** One tool over the range. */
export interface ToolMetrics {
  tool: string;
  calls: number;
  errors: number;
  /** Every error code the tool's calls ended with (failures, rejections, denials, busy …). */
  errorCodes: Record<string, number>;
  /** Calls parked for approval in the range, and those still waiting now. */
  approvals: number;
  approvalsPending: number;
  /** The calls' durations. */
  latency: Percentiles & { meanMs: number | null; maxMs: number | null };
  /** The steps with calls: their count, failures and p95. */
  steps: (MetricsStep & { p95: number | null })[];
}

/** One concurrency gate over the range: the calls that asked it for a slot, and their wait. */
export interface GateMetrics {
  /** tool:<name> or group:<name> (a keyed gate's keys together). */
  gate: string;
  calls: number;
  /** Calls refused a slot (busy). */
  busy: number;
  /** How long the calls waited for their slot. */
  wait: Percentiles & { meanMs: number | null; maxMs: number | null };
  steps: { at: number; calls: number; busy: number; p95: number | null }[];
}

/** GET /v1/metrics: the tenant's calls over a range, rolled up as they ended. */
export interface MetricsSummary {
  range: MetricsRange;
  from: number;
  to: number;
  stepMs: number;
  /** Every step of the range, oldest first (zero where nothing ended). */
  steps: MetricsStep[];
  /** The tools with calls in the range, the busiest first. */
  tools: ToolMetrics[];
  /** The gates asked in the range, the busiest first. */
  gates: GateMetrics[];
  /** Calls waiting for approval now. */
  approvalsPending: number;
}
