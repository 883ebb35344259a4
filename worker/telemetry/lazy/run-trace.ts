import type { DetachedCall } from "../../../src/runner";
import type { TracesConfig } from "../config";
import { exportWhenIdle, startTrace, type RequestTracer } from "./trace";

/** A run's tracer and the export of its spans once the run has ended. */
export interface RunTrace {
  tracer: RequestTracer;
  /** Sends the run's spans once its call has ended (for waitUntil; never throws). */
  exported(env: Record<string, unknown>): Promise<void>;
}

/**
 * The tracer of a Runner's run (detached, approved, or resumed with its caller's answers). It
 * continues the trace the call began in, under the span its request or its parked record named, and
 * shows what the call waited for before this run (an approval, its caller's answers) as a span beside it.
 */
export function traceRun(
  job: DetachedCall & { answers?: unknown },
  tenant: string,
  traces: TracesConfig,
  now = Date.now(),
): RunTrace {
  const tracer = startTrace(job.traceparent, undefined);
  tracer.attributes["toolgate.run"] = job.approved ? "approved" : job.answers ? "resumed" : "detached";
  if (job.waited && job.waited.since <= now) {
    tracer.addSpan(`${job.waited.for}_wait`, job.waited.since, now, {
      "toolgate.wait": job.waited.for,
      "gen_ai.tool.call.id": job.callId,
    });
  }
  return {
    tracer,
    exported: (env) => exportWhenIdle(tracer, tenant, traces, env).catch(() => undefined),
  };
}
