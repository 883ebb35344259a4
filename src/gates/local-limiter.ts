/**
 * An in-process Limiter (browser, Node, one Worker isolate): the same gate-queue state machine the
 * gate Durable Object persists, kept in memory, with timers for leases. Gates only hold across
 * calls that share this limiter object.
 */
import { acquireSlot, createGateState, expireDue, leaveSlot, nextDeadline, settlements } from "./queue";
import type { GateChange, GateState } from "./queue";
import type { Limiter, SlotGrant, SlotRequest } from "./limiter";

interface LocalGate {
  state: GateState;
  /** Queued acquires waiting for their grant, by call id. */
  pending: Map<string, Array<(grant: SlotGrant) => void>>;
  timer?: ReturnType<typeof setTimeout>;
  timerAt?: number;
}

export interface LocalLimiterOptions {
  /** Clock, for tests. Default Date.now. */
  now?: () => number;
}

export interface LocalLimiter extends Limiter {
  /** Holders and queue depth of one gate (undefined when the gate is idle). */
  inspect(gate: string): { limit: number; holders: string[]; queued: string[] } | undefined;
}

export function createLocalLimiter(options: LocalLimiterOptions = {}): LocalLimiter {
  const now = options.now ?? Date.now;
  const gates = new Map<string, LocalGate>();

  function gateFor(key: string, request: SlotRequest): LocalGate {
    let gate = gates.get(key);
    if (!gate) {
      gate = { state: createGateState(request.rules), pending: new Map() };
      gates.set(key, gate);
    }
    return gate;
  }

  /** Wake queued acquires that a transition granted or dropped, then re-arm the lease timer. */
  function settle(key: string, gate: LocalGate, changes: GateChange[]): void {
    for (const settled of settlements(changes)) {
      const waiting = gate.pending.get(settled.callId);
      if (!waiting) continue;
      gate.pending.delete(settled.callId);
      const grant: SlotGrant =
        "holder" in settled
          ? granted(key, gate, settled.callId)
          : settled.reason === "max_wait"
            ? {
                ok: false,
                code: "busy",
                message: `waited the longest time allowed at gate "${key}"`,
                retryAfterMs: settled.retryAfterMs ?? 0,
              }
            : { ok: false, code: "cancelled", message: `left the queue of gate "${key}" (${settled.reason})` };
      for (const resolve of waiting) resolve(grant);
    }
    armTimer(key, gate);
  }

  function armTimer(key: string, gate: LocalGate): void {
    const due = nextDeadline(gate.state);
    if (due === gate.timerAt) return;
    if (gate.timer !== undefined) clearTimeout(gate.timer);
    gate.timer = gate.timerAt = undefined;
    if (due === undefined) {
      if (gate.state.holders.size === 0 && gate.pending.size === 0) gates.delete(key);
      return;
    }
    gate.timerAt = due;
    gate.timer = setTimeout(
      () => {
        gate.timer = gate.timerAt = undefined;
        settle(key, gate, expireDue(gate.state, now()).changes);
      },
      Math.max(0, due - now()),
    );
  }

  function granted(key: string, gate: LocalGate, callId: string): SlotGrant {
    let released = false;
    return {
      ok: true,
      release: async () => {
        if (released) return;
        released = true;
        settle(key, gate, leaveSlot(gate.state, callId, "released", now()).changes);
      },
    };
  }

  return {
    async acquire(request: SlotRequest): Promise<SlotGrant> {
      const { gate: key, callId, signal } = request;
      if (signal?.aborted) return { ok: false, code: "cancelled", message: "cancelled before acquiring a slot" };
      const gate = gateFor(key, request);
      const at = now();
      const { outcome, changes } = acquireSlot(
        gate.state,
        { callId, tool: request.tool, rules: request.rules, leaseMs: request.leaseMs, askedAt: at },
        at,
      );
      settle(key, gate, changes);
      if (outcome.status === "granted") return granted(key, gate, callId);
      if (outcome.status === "busy") {
        return {
          ok: false,
          code: "busy",
          message:
            outcome.reason === "max_wait"
              ? `waited the longest time allowed at gate "${key}"`
              : `gate "${key}" is full (${gate.state.holders.size} running, ${gate.state.waiters.length} waiting)`,
          retryAfterMs: outcome.retryAfterMs,
        };
      }
      request.onQueued?.();
      return new Promise<SlotGrant>((resolve) => {
        const onAbort = () => settle(key, gate, leaveSlot(gate.state, callId, "cancelled", now()).changes);
        const waiting = gate.pending.get(callId) ?? [];
        waiting.push((grant) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(grant);
        });
        gate.pending.set(callId, waiting);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },

    inspect(key) {
      const gate = gates.get(key);
      if (!gate) return undefined;
      return {
        limit: gate.state.rules.limit,
        holders: [...gate.state.holders.keys()],
        queued: gate.state.waiters.map((w) => w.callId),
      };
    },
  };
}
