import { SPAN_KIND, STATUS_ERROR, type SpanSource, unixNano } from "./otlp-json";
import { attributes, ProtoWriter } from "./proto-writer";
import type { TraceSpan } from "./span";

/**
 * An ExportTraceServiceRequest in OTLP's protobuf encoding (opentelemetry/proto/collector/trace/v1),
 * written by hand: the few messages and fields toolgate's spans use, with their field numbers from the
 * official definitions.
 */
export function encodeOtlpProtobuf(spans: readonly TraceSpan[], source: SpanSource): Uint8Array {
  const scope = new ProtoWriter().string(1, source.scope.name);
  if (source.scope.version !== undefined) scope.string(2, source.scope.version);
  const scopeSpans = new ProtoWriter().message(1, scope);
  for (const span of spans) scopeSpans.message(2, spanMessage(span));
  const resource = attributes(new ProtoWriter(), 1, source.resource);
  const resourceSpans = new ProtoWriter().message(1, resource).message(2, scopeSpans);
  return new ProtoWriter().message(1, resourceSpans).finish();
}

function spanMessage(span: TraceSpan): ProtoWriter {
  const out = new ProtoWriter().bytes(1, hexBytes(span.traceId)).bytes(2, hexBytes(span.spanId));
  if (span.traceState !== undefined) out.string(3, span.traceState);
  if (span.parentSpanId !== undefined) out.bytes(4, hexBytes(span.parentSpanId));
  out.string(5, span.name).varint(6, SPAN_KIND[span.kind]);
  out.fixed64(7, BigInt(unixNano(span.startMs))).fixed64(8, BigInt(unixNano(span.endMs)));
  attributes(out, 9, span.attributes);
  if (span.error !== undefined) out.message(15, new ProtoWriter().string(2, span.error).varint(3, STATUS_ERROR));
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
