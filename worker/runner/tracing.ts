import type { Tenant } from "../tenant/tenant";
import { telemetryLibrary, type RequestTracer } from "../telemetry-library";
import type { RunJob } from "./address";

/** A run's tracer and the export of its spans once the run has ended. */
export interface RunTrace {
  tracer: RequestTracer;
  /** Sends the run's spans once its call has ended (for waitUntil; never throws). */
  exported(env: Record<string, unknown>): Promise<void>;
}

/**
 * For a tenant with `telemetry`: the tracer of a Runner's run. It continues the trace the call began
 * in (under the span its request or its parked record named), and shows what the call waited for
 * before this run (an approval, its caller's answers) as a span beside it. Other tenants load nothing.
 */
export async function traceRun(tenant: Tenant, job: RunJob, now = Date.now()): Promise<RunTrace | undefined> {
  const traces = tenant.config.telemetry?.traces;
  if (!traces) return undefined;
  const library = await telemetryLibrary();
  const tracer = library.startTrace(job.traceparent, undefined);
  tracer.attributes["toolgate.run"] = job.approved ? "approved" : job.answers ? "resumed" : "detached";
  if (job.waited && job.waited.since <= now) {
    tracer.addSpan(`${job.waited.for}_wait`, job.waited.since, now, {
      "toolgate.wait": job.waited.for,
      "gen_ai.tool.call.id": job.callId,
    });
  }
  return {
    tracer,
    exported: (env) => library.exportWhenIdle(tracer, tenant.name, traces, env).catch(() => undefined),
  };
}
