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
   * before the acquire, in the same transaction. At most MAX_FOLDED_RELEASES are read.
   */
  releases?: string[];
}

export type GateAcquireResult =
  /** queueDepth: calls waiting once the slot was granted (the caller's isolate defers its release only when none did). */
  /** waited: granted from the queue (the caller may not have been told that it waited: see quietWaitMs). */
  | { ok: true; expiresAt: number; queueDepth: number; waited?: true }
  | { ok: false; code: "queued"; position: number }
  | { ok: false; code: "busy"; message: string; retryAfterMs: number }
  | { ok: false; code: "cancelled"; message: string };

/** The wire shape of GET /v1/gates, defined once with the client's types. */
export type { GateSnapshot } from "../../src/client/types";

/** A waiter that stops re-attaching (its Worker died) leaves the queue this long after its poll ends. */
export const WAIT_GRACE_MS = 5_000;
