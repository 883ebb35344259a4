import type { SpanAttribute, TraceSpan } from "./span";

/** Who sends the spans: OTLP's resource (service.name …) and instrumentation scope. */
export interface SpanSource {
  resource: Record<string, SpanAttribute>;
  scope: { name: string; version?: string };
}

/** OTLP's span kinds, as numbers. */
export const SPAN_KIND = { internal: 1, client: 3 } as const;
/** OTLP's status code for a failed span. */
export const STATUS_ERROR = 2;

/**
 * An ExportTraceServiceRequest in OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
 * ids as hex, 64-bit integers as decimal strings, enums as numbers.
 */
export function encodeOtlpJson(spans: readonly TraceSpan[], source: SpanSource): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: jsonAttributes(source.resource) },
        scopeSpans: [{ scope: source.scope, spans: spans.map(jsonSpan) }],
      },
    ],
  });
}

function jsonSpan(span: TraceSpan): Record<string, unknown> {
  const json: Record<string, unknown> = {
    traceId: span.traceId,
    spanId: span.spanId,
    name: span.name,
    kind: SPAN_KIND[span.kind],
    startTimeUnixNano: unixNano(span.startMs),
    endTimeUnixNano: unixNano(span.endMs),
    attributes: jsonAttributes(span.attributes),
  };
  if (span.parentSpanId !== undefined) json.parentSpanId = span.parentSpanId;
  if (span.traceState !== undefined) json.traceState = span.traceState;
  if (span.error !== undefined) json.status = { code: STATUS_ERROR, message: span.error };
  return json;
}

export function jsonAttributes(attributes: Record<string, SpanAttribute>): { key: string; value: unknown }[] {
  const list: { key: string; value: unknown }[] = [];
  for (const key in attributes) list.push({ key, value: jsonValue(attributes[key]!) });
  return list;
}

function jsonValue(value: SpanAttribute): Record<string, unknown> {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/**
 * Milliseconds since the epoch as nanoseconds, in decimal: past 2^53, so built as text. Fractions of a
 * millisecond (performance.now-based clocks) keep microseconds.
 */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1_000));
  return `${whole}${String(micros).padStart(3, "0")}000`;
}
