/**
 * The pure state machine of one concurrency gate: holders with leases, a bounded FIFO queue of
 * waiters. No I/O and no clock of its own (callers pass `now`), so the same code runs in-process
 * (local-limiter.ts) and inside the gate Durable Object, which persists the `changes` each
 * transition reports. Every transition first reclaims what is overdue, so a late alarm never
 * matters and running expiry twice is a no-op.
 */

import type { GateRules } from "./rules";
import type {
  AcquireInput,
  AcquireOutcome,
  GateChange,
  GateState,
  Holder,
  Settlement,
  Transition,
  Waiter,
} from "./types";
import { averageHold, DEFAULT_HOLD_MS, normaliseRules, queueFull, retryAfterMs as waitFor, waitEnd } from "./waits";

export type * from "./types";
export { waitEnd };

/** The callers whose waits a transition ends, for whoever holds their open acquires. */
export function settlements(changes: readonly GateChange[]): Settlement[] {
  const out: Settlement[] = [];
  for (const change of changes) {
    if (change.type === "hold") out.push({ callId: change.holder.callId, holder: change.holder });
    else if (change.type === "leave") {
      const { callId, reason, retryAfterMs } = change;
      out.push(retryAfterMs === undefined ? { callId, reason } : { callId, reason, retryAfterMs });
    }
  }
  return out;
}

export function createGateState(rules: GateRules = { limit: 1 }): GateState {
  return {
    rules: normaliseRules(rules) as GateState["rules"],
    holders: new Map(),
    waiters: [],
    nextSeq: 1,
    avgHoldMs: DEFAULT_HOLD_MS,
  };
}

/**
 * Ask for a slot. Granted at once only when a slot is free and nobody waits (no overtaking);
 * otherwise queued, or busy when the queue is full or the caller has waited as long as its rules allow.
 * Idempotent per call id: a holder gets its slot back, a waiter keeps its place (and its deadline
 * moves to the new waitDeadline).
 */
export function acquireSlot(state: GateState, input: AcquireInput, now: number): Transition<AcquireOutcome> {
  // The newest policy wins: a raised limit may admit waiters right away.
  state.rules = normaliseRules(input.rules) as GateState["rules"];
  const changes = expireDue(state, now).changes;

  const held = state.holders.get(input.callId);
  if (held) return { outcome: { status: "granted", holder: held }, changes };

  const index = state.waiters.findIndex((w) => w.callId === input.callId);
  const existing = state.waiters[index];
  if (existing) {
    const waiter: Waiter = { ...existing, deadline: input.waitDeadline };
    state.waiters[index] = waiter;
    changes.push({ type: "queue", waiter });
    return { outcome: { status: "queued", position: index + 1, waiter }, changes };
  }

  if (state.holders.size < state.rules.limit && state.waiters.length === 0) {
    const holder = grant(state, input, now);
    changes.push({ type: "hold", holder });
    return { outcome: { status: "granted", holder }, changes };
  }

  // A caller past its longest wait (maxWaitMs 0, or one dropped for max_wait coming back) never queues.
  const end = waitEnd(input);
  const waitedOut = end !== undefined && end <= now;
  if (waitedOut || queueFull(state.waiters.length, state.rules.maxQueue)) {
    return {
      outcome: { status: "busy", reason: waitedOut ? "max_wait" : "full", retryAfterMs: retryAfterMs(state) },
      changes,
    };
  }

  const waiter: Waiter = {
    callId: input.callId,
    tool: input.tool,
    seq: state.nextSeq++,
    since: now,
    leaseMs: input.leaseMs,
    deadline: input.waitDeadline,
    rules: input.rules,
    askedAt: input.askedAt,
    ...(input.isolate === undefined ? {} : { isolate: input.isolate }),
  };
  state.waiters.push(waiter);
  changes.push({ type: "queue", waiter });
  return { outcome: { status: "queued", position: state.waiters.length, waiter }, changes };
}

/**
 * A holder releases its slot or a waiter leaves the queue (release and cancel both land here: a
 * cancel that races a grant must free the slot it was just given). Freed slots go to waiters.
 */
export function leaveSlot(
  state: GateState,
  callId: string,
  reason: "released" | "cancelled",
  now: number,
): Transition<"holder" | "waiter" | "absent"> {
  const changes = expireDue(state, now).changes;
  const holder = state.holders.get(callId);
  let was: "holder" | "waiter" | "absent" = "absent";
  if (holder) {
    state.holders.delete(callId);
    if (reason === "released") noteHoldTime(state, now - holder.since);
    was = "holder";
  } else {
    const index = state.waiters.findIndex((w) => w.callId === callId);
    if (index >= 0) {
      state.waiters.splice(index, 1);
      was = "waiter";
    }
  }
  if (was !== "absent") changes.push({ type: "leave", callId, was, reason });
  changes.push(...promote(state, now));
  return { outcome: was, changes };
}

/**
 * Several holders release their slots in one step (releases folded into another request); each is
 * leaveSlot's "released", in order. Absent ids change nothing.
 */
export function releaseSlots(state: GateState, callIds: readonly string[], now: number): Transition<number> {
  const changes: GateChange[] = [];
  let released = 0;
  for (const callId of callIds) {
    const step = leaveSlot(state, callId, "released", now);
    if (step.outcome === "holder") released++;
    changes.push(...step.changes);
  }
  return { outcome: released, changes };
}

/** How many waiters wait from elsewhere than `isolate` (a waiter of unknown isolate counts as elsewhere). */
export function othersWaiting(state: GateState, isolate: string | undefined): number {
  let others = 0;
  for (const w of state.waiters) if (isolate === undefined || w.isolate !== isolate) others++;
  return others;
}

/**
 * Lengthen the leases of holders an isolate keeps to pass on to its own next calls (to now +
 * leaseMs, never shorter), but only while no other isolate's call waits: a slot others wait for
 * must come back, so its lease stays what it is (every call already running on it is covered by
 * it). Answers the holders that are still held, extended or not; the others are gone (released or
 * reclaimed).
 */
export function extendLeases(
  state: GateState,
  callIds: readonly string[],
  leaseMs: number,
  now: number,
  isolate?: string,
): Transition<Holder[]> {
  const changes = expireDue(state, now).changes;
  const held: Holder[] = [];
  const quiet = othersWaiting(state, isolate) === 0;
  for (const callId of callIds) {
    const holder = state.holders.get(callId);
    if (!holder) continue;
    if (quiet && holder.expiresAt < now + leaseMs) {
      holder.expiresAt = now + leaseMs;
      changes.push({ type: "extend", holder });
    }
    held.push(holder);
  }
  return { outcome: held, changes };
}

/**
 * Reclaim expired leases and drop waiters past their deadline or their longest wait, then fill
 * freed slots. Idempotent.
 */
export function expireDue(state: GateState, now: number): Transition<number> {
  const changes: GateChange[] = [];
  for (const holder of [...state.holders.values()]) {
    if (holder.expiresAt <= now) {
      state.holders.delete(holder.callId);
      changes.push({ type: "leave", callId: holder.callId, was: "holder", reason: "lease_expired" });
    }
  }
  const outOfTime: string[] = [];
  state.waiters = state.waiters.filter((w) => {
    const end = waitEnd(w);
    if (end !== undefined && end <= now) {
      outOfTime.push(w.callId);
      return false;
    }
    const overdue = w.deadline !== undefined && w.deadline <= now;
    if (overdue) changes.push({ type: "leave", callId: w.callId, was: "waiter", reason: "wait_expired" });
    return !overdue;
  });
  // Their hint: how long the queue left behind them would take to reach a newcomer.
  if (outOfTime.length > 0) {
    const hint = retryAfterMs(state);
    for (const callId of outOfTime)
      changes.push({ type: "leave", callId, was: "waiter", reason: "max_wait", retryAfterMs: hint });
  }
  const removed = changes.length;
  changes.push(...promote(state, now));
  return { outcome: removed, changes };
}

/** The next time something in the gate is due (a lease, a wait deadline or a longest wait), for the alarm. */
export function nextDeadline(state: GateState): number | undefined {
  let next = Infinity;
  for (const h of state.holders.values()) next = Math.min(next, h.expiresAt);
  for (const w of state.waiters) {
    if (w.deadline !== undefined) next = Math.min(next, w.deadline);
    const end = waitEnd(w);
    if (end !== undefined) next = Math.min(next, end);
  }
  return next === Infinity ? undefined : next;
}

/** Grant free slots to the longest waiters, in arrival order. */
function promote(state: GateState, now: number): GateChange[] {
  const changes: GateChange[] = [];
  while (state.holders.size < state.rules.limit) {
    const next = state.waiters.shift();
    if (!next) break;
    const holder = grant(state, next, now);
    changes.push({ type: "hold", holder });
  }
  return changes;
}

function grant(state: GateState, who: { callId: string; tool: string; leaseMs: number }, now: number): Holder {
  const holder: Holder = { callId: who.callId, tool: who.tool, since: now, expiresAt: now + who.leaseMs };
  state.holders.set(holder.callId, holder);
  return holder;
}

function noteHoldTime(state: GateState, ms: number): void {
  state.avgHoldMs = averageHold(state.avgHoldMs, ms);
}

/** How long the gate's queue would take to reach a newcomer (waits.ts). */
function retryAfterMs(state: GateState): number {
  return waitFor(state.waiters.length, state.rules.limit, state.avgHoldMs);
}
