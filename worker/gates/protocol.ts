/** The RPC contract of the Gate Durable Object: what the Worker's limiter and GET /v1/gates exchange with it. */
import type { GateRules } from "../../src/gates/rules";

export interface GateAcquireInput {
  gate: string;
  callId: string;
  tool: string;
  /** The call's policy rules, whole (see src/gates/rules.ts). */
  rules: GateRules;
  leaseMs: number;
  /** When the call first asked (fixed across re-attaches): its longest wait counts from here. */
  askedAt: number;
  /**
   * Longest this RPC is held open while queued; then it answers `queued` and the caller re-attaches.
   * 0 answers `queued` at once; a short first poll tells the caller only of waits that outlast it.
   */
  pollMs: number;
  /** How long after a poll ends a waiter that did not come back leaves the queue. Default WAIT_GRACE_MS. */
  waitGraceMs?: number;
  /** Whose gate this is: its GateIndex lists the gate (GET /v1/gates), its event stream hears gate.changed. */
  tenant: string;
  /**
   * Holders of this gate that have finished (releases folded in by the caller's isolate): released
   * before the acquire, in the same transaction. At most MAX_KEPT_SLOTS are read.
   */
  releases?: string[];
  /** The isolate that asks, when it keeps slots: grants answer how many calls wait from elsewhere. */
  isolate?: string;
}

export type GateAcquireResult =
  /**
   * queueDepth: calls waiting once the slot was granted (the caller's isolate keeps the slot
   * for its next calls only when none did).
   */
  /**
   * validMs: how long the lease still ran when the gate answered (the caller's clock need not agree with the gate's).
   */
  /** waited: granted from the queue (the caller may not have been told that it waited: see quietWaitMs). */
  /** othersWaiting: of those, how many wait from another isolate than the input's (all, without one). */
  | { ok: true; expiresAt: number; validMs: number; queueDepth: number; othersWaiting: number; waited?: true }
  | { ok: false; code: "queued"; position: number }
  | { ok: false; code: "busy"; message: string; retryAfterMs: number }
  | { ok: false; code: "cancelled"; message: string };

/** An isolate keeps slots it holds to pass them on to its own next calls: their leases run on. */
export interface GateKeepInput {
  /** The slots (their holders' call ids) the isolate keeps, busy or idle. At most MAX_KEPT_SLOTS are read. */
  slots: string[];
  /** Each kept lease is extended to now + leaseMs, unless others wait. */
  leaseMs: number;
  /** Slots the isolate gives back: released first, in the same transaction. At most MAX_KEPT_SLOTS are read. */
  releases?: string[];
  /** The isolate that keeps them: its own waiting calls do not stop the extension. */
  isolate?: string;
}

export interface GateKeepResult {
  /** The kept slots still held, with how long each lease runs from the gate's answer. */
  held: Array<{ callId: string; validMs: number }>;
  /** Calls waiting at the gate. */
  queueDepth: number;
  /**
   * Of those, the ones from other isolates: when any do, no lease was extended and the isolate gives its slots back.
   */
  othersWaiting: number;
}

/** Most slot ids one keep (or one acquire's releases) reads: an isolate holds at most a gate's limit (≤ 1,000). */
export const MAX_KEPT_SLOTS = 1_000;

/** The wire shape of GET /v1/gates, defined once in the contract. */
export type { GateSnapshot } from "../../src/contract/gates";

/** A waiter that stops re-attaching (its Worker died) leaves the queue this long after its poll ends. */
export const WAIT_GRACE_MS = 5_000;
