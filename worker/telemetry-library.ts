/**
 * The telemetry library (worker/telemetry/lazy/: the tracer, OTLP encoders, the exporter), compiled and
 * evaluated on first use. It is a module of its own beside the bundle (telemetry/library.generated.mjs,
 * written by scripts/telemetry-module.mjs; wrangler.toml's find_additional_modules uploads it): tenants
 * without `telemetry` never parse it. At worker/'s root for the same reason as identity-library.ts: the
 * import's specifier is resolved from the bundle's root.
 */
export type TelemetryLibrary = typeof import("./telemetry/lazy/entry");
export type { RequestTracer, RunTrace } from "./telemetry/lazy/entry";

export function telemetryLibrary(): Promise<TelemetryLibrary> {
  return import("./telemetry/library.generated.mjs");
}
