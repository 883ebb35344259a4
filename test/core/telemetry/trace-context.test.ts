import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent, randomSpanId, randomTraceId } from "../../../src/telemetry/trace-context";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("W3C trace context", () => {
  it("reads a traceparent and its tracestate", () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, " congo=t61rcWkgMzE ")).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      sampled: true,
      traceState: "congo=t61rcWkgMzE",
    });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: false });
  });

  it("starts a new trace (undefined) on what the spec says to ignore", () => {
    for (const header of [
      undefined,
      "",
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}`,
    ])
      expect(parseTraceparent(header), String(header)).toBeUndefined();
  });

  it("reads a later version as 00, and drops an oversized tracestate", () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-more`)?.traceId).toBe(TRACE);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, "a=b,".repeat(200))?.traceState).toBeUndefined();
  });

  it("writes what it reads, with fresh non-zero ids", () => {
    const traceId = randomTraceId();
    const spanId = randomSpanId();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(parseTraceparent(formatTraceparent(traceId, spanId))).toMatchObject({ traceId, spanId, sampled: true });
  });
});
