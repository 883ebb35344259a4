/**
 * The telemetry library: toolgate's tracer, the OTLP encoders, the exporter and the metrics' reader,
 * loaded on first use by worker/telemetry-library.ts (a module of its own beside the bundle, written
 * by scripts/telemetry-module.mjs), so tenants without `telemetry` never parse it.
 */
export { exportWhenIdle, startTrace, type RequestTracer } from "./trace";
export { metricsIn } from "./metrics-read";
export { readMetrics } from "./metrics-summary";
export { traceRun, type RunTrace } from "./run-trace";
export { exportDueMetrics, startMetricsExport } from "./metrics-schedule";
