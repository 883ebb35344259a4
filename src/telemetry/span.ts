/** An attribute's value, as OTLP carries it. */
export type SpanAttribute = string | number | boolean;

/** One finished span, in the shape OTLP's encoders read. Times are milliseconds since the epoch. */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** The parent's tracestate, for a span whose parent is the caller's. */
  traceState?: string;
  name: string;
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: Record<string, SpanAttribute>;
  /** Set when the span's operation failed: OTLP status ERROR with this message. */
  error?: string;
}
