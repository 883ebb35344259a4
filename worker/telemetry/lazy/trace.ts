/** A request's tracer and the export of its spans (the tracing middleware's). */
import { createCallTracer, type RequestTracer } from "../../../src/telemetry/call-tracer";
import { parseTraceparent } from "../../../src/telemetry/trace-context";
import type { TracesConfig } from "../config";
import { exportSpans } from "./exporter";

export type { RequestTracer };
/** A request's tracer: it continues the caller's trace when the request names a valid one. */
export function startTrace(traceparent: string | undefined, tracestate: string | undefined): RequestTracer {
  return createCallTracer({ parent: parseTraceparent(traceparent, tracestate) });
}

/**
 * Once the request's calls have all finished (a streamed answer's too), queues their spans for the
 * tenant's collector and sends them: for the request's waitUntil, never on a call's path. A header
 * whose Worker secret is missing stops the export, named in the log by its field.
 */
export async function exportWhenIdle(
  tracer: RequestTracer,
  tenant: string,
  config: TracesConfig,
  env: Record<string, unknown>,
): Promise<void> {
  await tracer.idle();
  const spans = tracer.take();
  if (spans.length === 0 && tracer.dropped === 0) return;
  const headers: Record<string, string> = {};
  for (const [header, secret] of Object.entries(config.headers)) {
    const value = env[secret];
    if (typeof value !== "string" || value === "") {
      console.warn(
        JSON.stringify({
          msg: "telemetry export skipped",
          tenant,
          error: `telemetry.traces.headers.${header}: the Worker secret "${secret}" is not set`,
        }),
      );
      return;
    }
    headers[header] = value;
  }
  await exportSpans(spans, tracer.dropped, { tenant, config, headers });
}
