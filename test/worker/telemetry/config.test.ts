import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { parseTenantConfig } from "../../../worker/tenant/config";
import { loadConfigBlocks } from "../../../worker/config-blocks-library";

// The `telemetry` block's schema is in the optional blocks' module, which readyTenant loads before parsing.
await loadConfigBlocks();

/** The tenant's `telemetry` block: its defaults, and an error naming the field for each mistake. */

const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };

function configError(telemetry: unknown): string {
  try {
    parseTenantConfig({ ...base, telemetry });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("telemetry configuration", () => {
  it("fills in the defaults, and is absent unless configured", () => {
    expect(parseTenantConfig(base).telemetry).toBeUndefined();
    const { telemetry } = parseTenantConfig({
      ...base,
      telemetry: { traces: { endpoint: "https://otlp.example.com/v1/traces", headers: { "x-api-key": "OTLP_KEY" } } },
    });
    expect(telemetry).toEqual({
      traces: {
        endpoint: "https://otlp.example.com/v1/traces",
        protocol: "http/protobuf",
        headers: { "x-api-key": "OTLP_KEY" },
        serviceName: "toolgate",
        timeoutMs: 5_000,
        maxQueuedSpans: 2_048,
      },
    });
  });

  it.each([
    [
      { traces: { endpoint: "http://otlp.example.com/v1/traces" } },
      "telemetry.traces.endpoint: must be https (http only on loopback)",
    ],
    [
      { traces: { endpoint: "https://u:p@otlp.example.com" } },
      "telemetry.traces.endpoint: must hold no credentials or fragment",
    ],
    [{ traces: { endpoint: "otlp" } }, "telemetry.traces.endpoint: must be an absolute URL"],
    [
      { traces: { endpoint: "https://o.example", protocol: "grpc" } },
      'telemetry.traces.protocol: must be "http/protobuf" or "http/json"',
    ],
    [
      { traces: { endpoint: "https://o.example", headers: { Authorization: "Bearer x" } } },
      "telemetry.traces.headers.Authorization: must name a Worker secret",
    ],
    [
      { traces: { endpoint: "https://o.example", timeoutMs: 60_000 } },
      "telemetry.traces.timeoutMs: must be at most 30000",
    ],
    [
      { traces: { endpoint: "https://o.example", maxQueuedSpans: 0 } },
      "telemetry.traces.maxQueuedSpans: must be at least 1",
    ],
    [{ traces: { endpoint: "https://o.example", sampler: 1 } }, "telemetry.traces.sampler"],
    [{}, "telemetry: must have traces or metrics"],
    [
      { metrics: { endpoint: "http://otlp.example.com/v1/metrics" } },
      "telemetry.metrics.endpoint: must be https (http only on loopback)",
    ],
    [{ metrics: { endpoint: "otlp" } }, "https://collector.example.com/v1/metrics"],
    [
      { metrics: { endpoint: "https://o.example", intervalSeconds: 5 } },
      "telemetry.metrics.intervalSeconds: must be at least 10",
    ],
    [{ metrics: { endpoint: "https://o.example", maxQueuedSpans: 9 } }, "telemetry.metrics.maxQueuedSpans"],
  ])("refuses %j naming the field", (telemetry, message) => {
    expect(configError(telemetry)).toContain(message);
  });

  it("accepts plain http on loopback, for a local collector", () => {
    const { telemetry } = parseTenantConfig({
      ...base,
      telemetry: { traces: { endpoint: "http://127.0.0.1:4318/v1/traces" } },
    });
    expect(telemetry?.traces?.endpoint).toBe("http://127.0.0.1:4318/v1/traces");
  });

  it("takes metrics alone, with their defaults", () => {
    const { telemetry } = parseTenantConfig({
      ...base,
      telemetry: { metrics: { endpoint: "https://o.example/v1/metrics" } },
    });
    expect(telemetry).toEqual({
      metrics: {
        endpoint: "https://o.example/v1/metrics",
        protocol: "http/protobuf",
        headers: {},
        serviceName: "toolgate",
        timeoutMs: 5_000,
        intervalSeconds: 60,
      },
    });
  });
});
