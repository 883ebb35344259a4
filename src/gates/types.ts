/** The data of one concurrency gate and of its transitions (the logic is queue.ts). */

import type { GateRules } from "./rules";

export interface Holder {
  callId: string;
  tool: string;
  /** When the slot was granted. */
  since: number;
  /** When the lease ends and the slot is reclaimed even without a release. */
  expiresAt: number;
}

export interface Waiter {
  callId: string;
  tool: string;
  /** Arrival order: grants go to the smallest seq first. */
  seq: number;
  /** When it joined the queue. */
  since: number;
  leaseMs: number;
  /** Leaves the queue at this time unless it is granted or re-attaches first; undefined: never. */
  deadline?: number;
  /** The rules its call came with (its own maxWaitMs …). */
  rules: GateRules;
  /** When its call first asked for a slot (it may leave the queue and come back). */
  askedAt: number;
  /**
   * The isolate its call waits from, when its limiter keeps slots (worker/gates/slot-pool.ts): that
   * isolate's own waiters do not stop it passing its slots on. Not stored: after an eviction a waiter
   * counts as another isolate's, which only stops the passing sooner.
   */
  isolate?: string;
}

export interface GateState {
  /** The newest rules an acquire brought (normalised): the gate's limit and queue. */
  rules: GateRules & { maxQueue: number };
  holders: Map<string, Holder>;
  /** Always sorted by seq. */
  waiters: Waiter[];
  nextSeq: number;
  /** Moving average of how long holders keep a slot: only feeds the busy retry-after hint. */
  avgHoldMs: number;
}

/** wait_expired: the waiter stopped re-attaching; max_wait: it waited as long as its policy allows. */
export type LeaveReason = "released" | "cancelled" | "lease_expired" | "wait_expired" | "max_wait";

/** What a transition did, in order, so a store can mirror it row by row. */
export type GateChange =
  | { type: "hold"; holder: Holder }
  /** A holder's lease runs longer (its isolate keeps the slot to pass it on): only expiresAt changed. */
  | { type: "extend"; holder: Holder }
  | { type: "queue"; waiter: Waiter }
  | { type: "leave"; callId: string; was: "holder" | "waiter"; reason: LeaveReason; retryAfterMs?: number };

/**
 * A caller a transition decided: granted a slot (holder) or dropped from the queue or slot (reason;
 * one dropped for max_wait answers busy with retryAfterMs).
 */
export type Settlement =
  | { callId: string; holder: Holder }
  | { callId: string; reason: LeaveReason; retryAfterMs?: number };

export interface AcquireInput {
  callId: string;
  tool: string;
  rules: GateRules;
  leaseMs: number;
  /** When the call first asked: the caller fixes it once and sends the same value when it re-attaches. */
  askedAt: number;
  /** The isolate that asks, when it keeps slots (see Waiter.isolate). */
  isolate?: string;
  /** Absolute time a waiter gives up; undefined waits until it leaves. */
  waitDeadline?: number;
}

export type AcquireOutcome =
  | { status: "granted"; holder: Holder }
  | { status: "queued"; position: number; waiter: Waiter }
  /** busy: the queue is full, or the caller has already waited as long as its rules allow (max_wait). */
  | { status: "busy"; reason: "full" | "max_wait"; retryAfterMs: number };

export interface Transition<T> {
  outcome: T;
  changes: GateChange[];
}
