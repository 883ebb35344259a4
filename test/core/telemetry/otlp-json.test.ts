import { describe, expect, it } from "vitest";
import { encodeOtlpJson, unixNano } from "../../../src/telemetry/otlp-json";

describe("OTLP/JSON", () => {
  it("writes times as decimal nanoseconds, past 2^53", () => {
    expect(unixNano(1_764_300_000_123)).toBe("1764300000123000000");
    expect(unixNano(1_764_300_000_123.25)).toBe("1764300000123250000");
  });

  it("encodes spans with hex ids, numeric kinds, typed attributes and error status", () => {
    const body = encodeOtlpJson(
      [
        {
          traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
          spanId: "00f067aa0ba902b7",
          parentSpanId: "b7ad6b7169203331",
          traceState: "v=1",
          name: "GET",
          kind: "client",
          startMs: 1,
          endMs: 2,
          attributes: { s: "x", i: 3, d: 1.5, b: true },
          error: "503",
        },
      ],
      { resource: { "service.name": "toolgate" }, scope: { name: "toolgate" } },
    );
    expect(JSON.parse(body)).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "toolgate" } }] },
          scopeSpans: [
            {
              scope: { name: "toolgate" },
              spans: [
                {
                  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
                  spanId: "00f067aa0ba902b7",
                  parentSpanId: "b7ad6b7169203331",
                  traceState: "v=1",
                  name: "GET",
                  kind: 3,
                  startTimeUnixNano: "1000000",
                  endTimeUnixNano: "2000000",
                  attributes: [
                    { key: "s", value: { stringValue: "x" } },
                    { key: "i", value: { intValue: "3" } },
                    { key: "d", value: { doubleValue: 1.5 } },
                    { key: "b", value: { boolValue: true } },
                  ],
                  status: { code: 2, message: "503" },
                },
              ],
            },
          ],
        },
      ],
    });
  });
});
