import type { RateLimit } from "../../src/adapters/declarations";

/**
 * A token bucket as GCRA (one "theoretical arrival time" instead of a token count), with
 * reservations: a caller that may wait is given its future send time at once, so concurrent
 * callers line up without polling. Pure, so the Durable Object only persists the two numbers.
 */
export interface BucketState {
  /** When the bucket would be empty again if nobody else came (ms since epoch). */
  tat: number;
  /** Nobody sends before this (an upstream's Retry-After). */
  blockedUntil: number;
}

export type Grant = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

/** Time between tokens, and how far ahead the bucket may run (burst − 1 tokens). Default burst 1: evenly spaced. */
function shape(limit: RateLimit): { step: number; tolerance: number } {
  const step = limit.intervalMs / limit.requests;
  return { step, tolerance: ((limit.burst ?? 1) - 1) * step };
}

/** Reserve one send: now or later (waitMs ≤ maxWaitMs), or refuse with when it could have gone. */
export function take(
  state: BucketState,
  limit: RateLimit,
  now: number,
  maxWaitMs: number,
): { state: BucketState; grant: Grant } {
  const { step, tolerance } = shape(limit);
  const at = Math.max(now, state.blockedUntil, state.tat - tolerance);
  const waitMs = at - now;
  if (waitMs > maxWaitMs) return { state, grant: { ok: false, retryAfterMs: Math.ceil(waitMs) } };
  return {
    state: { tat: Math.max(state.tat, at) + step, blockedUntil: state.blockedUntil },
    grant: { ok: true, waitMs },
  };
}

/**
 * Hold everyone back until now + ms. The bucket is left empty at that moment, so callers resume
 * one step apart instead of in a burst that would trip the upstream again.
 */
export function backOff(state: BucketState, limit: RateLimit, now: number, ms: number): BucketState {
  const blockedUntil = Math.max(state.blockedUntil, now + ms);
  return { blockedUntil, tat: Math.max(state.tat, blockedUntil + shape(limit).tolerance) };
}
