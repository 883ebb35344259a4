import type { SpanAttribute } from "./span";

/** KeyValue messages (key 1, AnyValue 2: string 1, bool 2, int64 3, double 4) as repeated field `field`. */
export function attributes(out: ProtoWriter, field: number, values: Record<string, SpanAttribute>): ProtoWriter {
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

const encoder = new TextEncoder();

/** Protobuf's wire format, written by hand for OTLP: tagged fields appended to a list of byte chunks. */
export class ProtoWriter {
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
  /** A packed repeated fixed64 (proto3's default for repeated scalars). */
  packedFixed64(field: number, values: readonly number[]): this {
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    for (const [i, value] of values.entries()) view.setBigUint64(i * 8, BigInt(value), true);
    return this.bytes(field, bytes);
  }
  /** A packed repeated double. */
  packedDouble(field: number, values: readonly number[]): this {
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    for (const [i, value] of values.entries()) view.setFloat64(i * 8, value, true);
    return this.bytes(field, bytes);
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
