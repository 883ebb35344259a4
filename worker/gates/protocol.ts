/** The RPC contract of the Gate Durable Object: what the Worker's limiter and GET /v1/gates exchange with it. */

export interface GateAcquireInput {
  gate: string;
  callId: string;
  tool: string;
  limit: number;
  maxQueue: number;
  leaseMs: number;
  /** When the caller stops waiting: still queued then, it answers busy (first ask + policy maxWaitMs). */
  maxWaitUntil?: number;
  /**
   * Longest this RPC is held open while queued; then it answers `queued` and the caller re-attaches.
   * 0 answers `queued` at once, so the caller learns that it waits.
   */
  pollMs: number;
  /** How long after a poll ends a waiter that did not come back leaves the queue. Default WAIT_GRACE_MS. */
  waitGraceMs?: number;
  /** Whose gate this is: its GateIndex lists the gate (GET /v1/gates), its event stream hears gate.changed. */
  tenant: string;
}

export type GateAcquireResult =
  | { ok: true; expiresAt: number }
  | { ok: false; code: "queued"; position: number }
  | { ok: false; code: "busy"; message: string; retryAfterMs: number }
  | { ok: false; code: "cancelled"; message: string };

/** The wire shape of GET /v1/gates, defined once with the client's types. */
export type { GateSnapshot } from "../../src/client/types";

/** A waiter that stops re-attaching (its Worker died) leaves the queue this long after its poll ends. */
export const WAIT_GRACE_MS = 5_000;
