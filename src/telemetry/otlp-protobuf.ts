import { SPAN_KIND, STATUS_ERROR, type SpanSource, unixNano } from "./otlp-json";
import type { SpanAttribute, TraceSpan } from "./span";

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

/** KeyValue messages (key 1, AnyValue 2: string 1, bool 2, int64 3, double 4) as repeated field `field`. */
function attributes(out: ProtoWriter, field: number, values: Record<string, SpanAttribute>): ProtoWriter {
  for (const key in values) {
    const value = values[key]!;
    const any = new ProtoWriter();
    if (typeof value === "string") any.string(1, value);
    else if (typeof value === "boolean") any.varint(2, value ? 1 : 0);
    else if (Number.isSafeInteger(value)) any.varint(3, value);
    else any.double(4, value);
    out.message(field, new ProtoWriter().string(1, key).message(2, any));
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const encoder = new TextEncoder();

/** Protobuf's wire format: tagged fields appended to a growing list of byte chunks. */
class ProtoWriter {
  #chunks: Uint8Array[] = [];
  #length = 0;

  varint(field: number, value: number | bigint): this {
    this.#tag(field, 0);
    this.#varint(BigInt.asUintN(64, BigInt(value)));
    return this;
  }
  fixed64(field: number, value: bigint): this {
    this.#tag(field, 1);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, value, true);
    return this.#push(bytes);
  }
  double(field: number, value: number): this {
    this.#tag(field, 1);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    return this.#push(bytes);
  }
  string(field: number, value: string): this {
    return this.bytes(field, encoder.encode(value));
  }
  bytes(field: number, value: Uint8Array): this {
    this.#tag(field, 2);
    this.#varint(BigInt(value.length));
    return this.#push(value);
  }
  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }
  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
  #tag(field: number, wireType: number): void {
    this.#varint(BigInt((field << 3) | wireType));
  }
  #varint(value: bigint): void {
    const bytes: number[] = [];
    let rest = value;
    while (rest > 0x7fn) {
      bytes.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    bytes.push(Number(rest));
    this.#push(Uint8Array.from(bytes));
  }
  #push(bytes: Uint8Array): this {
    this.#chunks.push(bytes);
    this.#length += bytes.length;
    return this;
  }
}
