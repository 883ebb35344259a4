/** A request for one slot of a concurrency gate. */
export interface SlotRequest {
  /** Gate key: tenant + tool or group [+ resource key]. One gate per key. */
  gate: string;
  limit: number;
  /** Longest queue; a full queue answers busy. */
  maxQueue: number;
  callId: string;
  tool: string;
  /** How long the slot is held before a vanished holder loses it. */
  leaseMs: number;
  /** Longest time to wait in the queue; still waiting then, the call answers busy. Undefined: no limit. */
  maxWaitMs?: number;
  /** Aborting it leaves the queue (the call never runs later). */
  signal?: AbortSignal;
  /** Told once when the call starts waiting in the queue (not for a slot granted at once). */
  onQueued?: () => void;
}

export type SlotGrant =
  | { ok: true; release(): Promise<void> }
  | { ok: false; code: "busy" | "cancelled"; message: string; retryAfterMs?: number };

/** Enforces policy.concurrency. In-process here; a Durable Object per gate in the Worker. */
export interface Limiter {
  acquire(request: SlotRequest): Promise<SlotGrant>;
}
