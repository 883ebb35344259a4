/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate` a call
 * arrives with, and the ones toolgate sends on.
 */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero: the caller's span, the parent of toolgate's. */
  spanId: string;
  /** Whether the caller sampled the trace (flag 01). */
  sampled: boolean;
  /** The vendors' state, passed on as it came (at most 512 characters, else dropped). */
  traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
/** tracestate: at most 32 list members (the spec's bound); longer headers are dropped, not cut. */
const MAX_TRACESTATE_CHARS = 512;

/**
 * The context of a `traceparent` header (and its `tracestate`), or undefined when it is absent or
 * invalid: the spec says to start a new trace then. Version 00 must have nothing after the flags; a
 * later version may, and is read as 00.
 */
export function parseTraceparent(
  traceparent: string | null | undefined,
  tracestate?: string | null,
): TraceContext | undefined {
  if (typeof traceparent !== "string" || traceparent.length > 512) return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const context: TraceContext = { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
  const state = typeof tracestate === "string" ? tracestate.trim() : "";
  if (state !== "" && state.length <= MAX_TRACESTATE_CHARS) context.traceState = state;
  return context;
}

/** The `traceparent` header of a span: version 00, sampled. */
export function formatTraceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** Random ids: 16 bytes for a trace, 8 for a span, as lowercase hex (never all zero). */
export function randomTraceId(): string {
  return randomHex(16);
}

export function randomSpanId(): string {
  return randomHex(8);
}

const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
// One getRandomValues call fills ids for many spans: a call per id cost more than the span it names.
const pool = new Uint8Array(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let hex = "";
  let zero = true;
  for (let i = used; i < used + bytes; i++) {
    hex += HEX[pool[i]!];
    if (pool[i] !== 0) zero = false;
  }
  used += bytes;
  return zero ? `${hex.slice(0, -1)}1` : hex;
}
