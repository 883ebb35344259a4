import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { waitUntilOf } from "../execution";
import { telemetryLibrary } from "../telemetry-library";

/**
 * For a tenant with `telemetry`: the request's tracer (continuing its traceparent), which the pipeline
 * options of its calls take up, and the export of their spans once they have all finished, in
 * waitUntil. Other tenants pass straight through and never load the library.
 */
export const tracing: MiddlewareHandler<AppEnv> = async (c, next) => {
  const traces = c.var.tenant.config.telemetry?.traces;
  if (!traces) return next();
  const library = await telemetryLibrary();
  const tracer = library.startTrace(c.req.header("traceparent"), c.req.header("tracestate"));
  c.set("tracer", tracer);
  await next();
  const env = c.env as unknown as Record<string, unknown>;
  // Telemetry never fails a request: the exporter logs what it could not send.
  const exported = library.exportWhenIdle(tracer, c.var.tenant.name, traces, env).catch(() => undefined);
  waitUntilOf(c)?.(exported);
};
