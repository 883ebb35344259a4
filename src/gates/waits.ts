/**
 * The rules a gate's waits follow, one of each, for the gate's queue (queue.ts) and for the calls an
 * isolate keeps waiting for its own slots (slot-pool.ts): when a wait ends, when a queue is full, and
 * what a call refused as busy is told.
 */
import type { GateRules } from "./rules";

/** Waiting calls a gate holds before new ones answer `busy`, unless the policy says otherwise. */
export const DEFAULT_MAX_QUEUE = 64;

/**
 * Rules as the queue applies them: limit a whole number ≥ 1 and maxQueue ≥ 0 (NaN or a non-number,
 * a bug upstream, becomes the minimum). Here, not beside the schema (rules.ts): a tool's policy
 * needs the schema, and only a limiter needs this, so an app bundles it only with its limiter.
 */
export function normaliseRules(rules: GateRules): GateRules {
  return {
    ...rules,
    limit: wholeAtLeast(rules.limit, 1),
    maxQueue: wholeAtLeast(rules.maxQueue ?? DEFAULT_MAX_QUEUE, 0),
  };
}

function wholeAtLeast(value: number, min: number): number {
  return Number.isFinite(value) ? Math.max(min, Math.floor(value)) : min;
}

/** The hold time assumed before any slot was released. */
export const DEFAULT_HOLD_MS = 1_000;

/** When a waiter (or a caller) has waited as long as its rules allow; undefined: no limit. */
export function waitEnd(who: { rules: GateRules; askedAt: number }): number | undefined {
  return who.rules.maxWaitMs === undefined ? undefined : who.askedAt + who.rules.maxWaitMs;
}

/** With this many calls already waiting, a new one answers busy. */
export function queueFull(waiting: number, maxQueue = DEFAULT_MAX_QUEUE): boolean {
  return waiting >= maxQueue;
}

/** The moving average of how long a slot is held, after one more hold of `heldMs`. */
export function averageHold(avgHoldMs: number, heldMs: number): number {
  return Math.max(1, avgHoldMs * 0.8 + Math.max(0, heldMs) * 0.2);
}

/** Rough time until a new arrival could get a slot: everyone waiting ahead of it, `limit` at a time. */
export function retryAfterMs(waiting: number, limit: number, avgHoldMs: number): number {
  const rounds = Math.ceil((waiting + 1) / limit);
  return Math.min(60_000, Math.max(10, Math.round(rounds * avgHoldMs)));
}

/** What a call refused because the queue is full is told. */
export function busyMessage(running: number, waiting: number): string {
  return `${running} running, ${waiting} waiting`;
}
