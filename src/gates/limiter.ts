import type { GateRules } from "./rules";

/** A request for one slot of a concurrency gate. */
export interface SlotRequest {
  /** Gate key: tenant + tool or group [+ resource key]. One gate per key. */
  gate: string;
  /** What the gate enforces (limit, queue, waits), passed on whole to the gate. */
  rules: GateRules;
  callId: string;
  tool: string;
  /** How long the slot is held before a vanished holder loses it. */
  leaseMs: number;
  /** Aborting it leaves the queue (the call never runs later). */
  signal?: AbortSignal;
  /**
   * Told once when the call has waited in the queue for the limiter's quiet time (the gate Durable
   * Object's: 250 ms; the in-process limiter's: none). A slot that came sooner says `waited` instead.
   */
  onQueued?: () => void;
}

export type SlotGrant =
  | {
      ok: true;
      release(): Promise<void>;
      /** Granted after waiting in the queue, whether or not onQueued was told. */
      waited?: boolean;
    }
  | { ok: false; code: "busy" | "cancelled"; message: string; retryAfterMs?: number };

/** Enforces policy.concurrency. In-process here; a Durable Object per gate in the Worker. */
export interface Limiter {
  acquire(request: SlotRequest): Promise<SlotGrant>;
}
