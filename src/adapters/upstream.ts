import { toolError } from "../errors";
import { createMasker, type Masker } from "../mask";
import type { ToolContext } from "../tool";

/**
 * A rate limit shared by every caller of one upstream (the Worker backs it with a Durable Object;
 * without one, adapters call the upstream directly).
 */
export interface UpstreamGate {
  /** Wait for permission to send one request; `ok: false` when that would take longer than maxWaitMs. */
  take(maxWaitMs: number, signal: AbortSignal): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
  /** The upstream answered 429/503 with Retry-After: hold every caller back that long. */
  backOff(retryAfterMs: number): void | Promise<void>;
}

/** Longest Retry-After honoured; beyond this the hint is capped (an upstream should not park a tenant for hours). */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = date - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/**
 * One request to an upstream through the call's egress-checked fetch and signal, after taking a
 * token from the shared gate; a 429/503 with Retry-After is reported to the gate so every caller
 * backs off together.
 */
export async function fetchUpstream(
  ctx: Pick<ToolContext, "fetch" | "signal">,
  gate: UpstreamGate | undefined,
  maxWaitMs: number,
  url: string,
  init: RequestInit,
): Promise<Response> {
  if (gate) {
    const token = await gate.take(maxWaitMs, ctx.signal);
    if (!token.ok) {
      throw toolError("busy", `The upstream is rate limited; try again in ${Math.ceil(token.retryAfterMs / 1000)} s`, {
        retryAfterMs: token.retryAfterMs,
      });
    }
  }
  const response = await ctx.fetch(url, { ...init, signal: ctx.signal });
  if (gate && (response.status === 429 || response.status === 503)) {
    const after = parseRetryAfter(response.headers.get("retry-after"));
    if (after !== undefined && after > 0) await gate.backOff(after);
  }
  return response;
}

const maskers = new WeakMap<object, Masker>();

/** The masker for a call's secrets (cached per secrets object: building it compiles a pattern). */
export function maskerFor(secrets: Readonly<Record<string, string>>): Masker {
  let masker = maskers.get(secrets);
  if (!masker) {
    masker = createMasker(Object.values(secrets));
    maskers.set(secrets, masker);
  }
  return masker;
}

/** Read at most maxBytes of a body; the rest is cancelled unread. */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}
