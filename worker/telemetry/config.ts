import * as v from "valibot";
import { isLoopbackHost } from "../identity/loopback";
import { intIn } from "../tenant/int-in";

/** Why an OTLP endpoint is refused: https (http only on loopback), no credentials or fragment. */
function endpointProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL like https://collector.example.com/v1/traces";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
    return "must be https (http only on loopback)";
  if (url.username || url.password || url.hash || text.includes("#"))
    return "must hold no credentials or fragment (put them in headers, from Worker secrets)";
  return undefined;
}

/** What an OTLP/HTTP export names: its endpoint (`path`: the usual one, for the error), encoding, headers. */
function exportFields(path: string) {
  return {
    /** The OTLP/HTTP endpoint, whole (a collector's is usually …/v1/traces or …/v1/metrics). */
    endpoint: v.pipe(
      v.string(),
      v.maxLength(512, "must be at most 512 characters"),
      v.check(
        (text) => endpointProblem(text) === undefined,
        (issue) => (endpointProblem(issue.input as string) ?? "is invalid").replace("/v1/traces", path),
      ),
    ),
    protocol: v.optional(
      v.picklist(["http/protobuf", "http/json"], 'must be "http/protobuf" or "http/json"'),
      "http/protobuf",
    ),
    /** Header name → the Worker secret holding its value (an API key, `Bearer …`). */
    headers: v.optional(
      v.record(
        v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,64}$/, "must be a header name (letters, digits, -)")),
        v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must name a Worker secret (an identifier)")),
      ),
      {},
    ),
    /** service.name of what is sent. */
    serviceName: v.optional(
      v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(100, "must be at most 100 characters")),
      "toolgate",
    ),
    /** How long one export may take before it is abandoned (what it carried dropped and counted). */
    timeoutMs: v.optional(intIn(100, 30_000), 5_000),
  };
}

/**
 * The `telemetry` block, built on first use: a tenant without it never builds it. Header values name
 * Worker secrets, so no credential is written in the configuration.
 */
export function telemetrySchema() {
  return v.pipe(
    v.strictObject({
      traces: v.optional(
        v.strictObject({
          ...exportFields("/v1/traces"),
          /** Most spans an isolate holds for export; beyond them, new spans are dropped and counted. */
          maxQueuedSpans: v.optional(intIn(1, 100_000), 2_048),
        }),
      ),
      metrics: v.optional(
        v.strictObject({
          ...exportFields("/v1/metrics"),
          /** How often the tenant's finished minutes are sent, in seconds. */
          intervalSeconds: v.optional(intIn(10, 3_600), 60),
        }),
      ),
    }),
    v.check((block) => block.traces !== undefined || block.metrics !== undefined, "must have traces or metrics"),
  );
}

export type TelemetryConfig = v.InferOutput<ReturnType<typeof telemetrySchema>>;
export type TracesConfig = NonNullable<TelemetryConfig["traces"]>;
export type MetricsExportConfig = NonNullable<TelemetryConfig["metrics"]>;
