/**
 * The Worker's Limiter: one Gate Durable Object per gate key, so a tool's concurrency policy holds
 * across every request, isolate and location. Queued calls long-poll the gate and re-attach by call
 * id (a broken stub or the end of a poll keeps their place); an abort leaves the queue.
 */
import type { Limiter, SlotGrant, SlotRequest } from "../../src/gates/limiter";
import { afterFailure, callDurable, DurableUnavailable } from "../durable/call";
import type { GatesAddress, GateStub } from "./address";
import type { GateAcquireInput, GateAcquireResult } from "./protocol";
import type { ReleaseOutbox } from "./release-outbox";

export interface GateLimiterOptions {
  /** How long one acquire RPC waits in the queue before re-attaching. Default 10 s. */
  pollMs?: number;
  /**
   * How long a call with onQueued waits in the queue before it is told (the first poll's length).
   * Shorter waits cost the journal nothing: no claim, no watch. Default QUIET_WAIT_MS.
   */
  quietWaitMs?: number;
  /** Fresh stubs to try after a retryable RPC failure before giving up (an overloaded gate is never retried). Default 2. */
  retries?: number;
  /**
   * The request's ctx.waitUntil. Given one, release() hands the release RPC to it and returns at
   * once: the answer does not wait for the gate's round trip (the slot frees when it lands).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * With waitUntil: where a slot freed while nobody waited at its grant waits to ride on this
   * isolate's next acquire of the same gate (one round trip instead of two per call). Without it,
   * each release is a round trip of its own.
   */
  outbox?: ReleaseOutbox;
  /** How long a release whose grant found nobody waiting waits for an acquire to carry it. Default FOLD_MS. */
  foldMs?: number;
}

/**
 * The longest a finished call's slot stays taken while its release waits for an acquire to carry
 * it. Only a caller arriving meanwhile from another isolate can feel it: a grant that found others
 * waiting is released at once (a short window there made waits, and so their cost, longer).
 */
export const FOLD_MS = 100;

/**
 * A wait this short is not announced to the caller's journal: a waiting call is then claimed and
 * watched as a running one is (a read-only call from its first second, others from 250 ms), and one
 * granted after any wait still asks its journal whether a cancel was accepted before it starts.
 */
export const QUIET_WAIT_MS = 1_000;

const ABORTED = Symbol("aborted");

/** The limiter of one tenant's calls: its gates (tenantGates) list themselves in its index. */
export function createGateLimiter(gates: GatesAddress, options: GateLimiterOptions = {}): Limiter {
  const pollMs = options.pollMs ?? 10_000;
  const retries = options.retries ?? 2;
  const stubFor = (gate: string) => gates.for(gate);
  const { waitUntil, outbox } = options;
  const foldMs = options.foldMs ?? FOLD_MS;
  /** When a deferring request's window ends: its own release, unless an acquire carried it (the others have windows of their own). */
  const flush = async (gate: string, callId: string): Promise<void> => {
    if (outbox!.takeOne(gate, callId)) await releaseSlot(stubFor, gate, callId);
  };
  const release = (gate: string, callId: string, queueDepth: number): Promise<void> => {
    if (!waitUntil) return releaseSlot(stubFor, gate, callId);
    // Nobody waited when the slot was granted, nor waits here now: the next acquire from here
    // (usually soon on a busy isolate) carries it; else it goes alone when its window ends.
    if (outbox && queueDepth === 0 && !outbox.isAcquiring(gate)) {
      outbox.add(gate, callId);
      waitUntil(new Promise((resolve) => setTimeout(resolve, foldMs)).then(() => flush(gate, callId)));
    } else {
      waitUntil(releaseSlot(stubFor, gate, callId));
    }
    return Promise.resolve();
  };

  return {
    async acquire(request: SlotRequest): Promise<SlotGrant> {
      const { signal, callId } = request;
      const cancelled = (): SlotGrant => ({ ok: false, code: "cancelled", message: "the caller gave up while waiting for a slot" });
      if (signal?.aborted) return cancelled();
      // Fixed once, so every re-attach counts the longest wait from the same moment.
      const askedAt = Date.now();
      // A caller that wants to know when it waits gets a first poll that answers `queued` after quietWaitMs.
      let toldQueued = !request.onQueued;
      const input: GateAcquireInput = {
        gate: request.gate,
        callId,
        tool: request.tool,
        rules: request.rules,
        leaseMs: request.leaseMs,
        askedAt,
        pollMs: toldQueued ? pollMs : (options.quietWaitMs ?? QUIET_WAIT_MS),
        tenant: gates.tenant,
      };
      const releases = outbox?.take(request.gate) ?? [];
      if (releases.length > 0) input.releases = releases;
      const acquired = outbox?.acquiring(request.gate);
      const aborted = abortPromise(signal);
      let stub = stubFor(request.gate);
      let failures = 0;
      try {
        for (;;) {
          if (signal?.aborted) {
            // Releases this acquire took along and never sent still go (they are other calls' slots).
            if (input.releases) waitUntil?.(releaseAll(stubFor, request.gate, input.releases));
            return await leave(stub, callId, cancelled());
          }
          let result: GateAcquireResult | typeof ABORTED;
          try {
            result = await Promise.race([stub.acquire(input), aborted.promise]);
          } catch (error) {
            // Acquire is idempotent per call id, so a new stub re-attaches to the same slot or place.
            const next = afterFailure(error, ++failures, retries + 1);
            if ("fail" in next) {
              // Overloaded or unreachable: the call answers busy with a hint, like a full queue.
              if (next.fail instanceof DurableUnavailable) return { ok: false, code: "busy", message: next.fail.message, retryAfterMs: next.fail.retryAfterMs };
              throw next.fail;
            }
            await new Promise((resolve) => setTimeout(resolve, next.retryInMs));
            stub = stubFor(request.gate);
            continue;
          }
          if (result === ABORTED) return await leave(stub, callId, cancelled());
          // The gate applied the folded releases with this answer (a failed RPC above keeps them for the retry).
          delete input.releases;
          if (result.ok) {
            const { queueDepth } = result;
            const grant: SlotGrant = { ok: true, release: once(() => release(request.gate, callId, queueDepth)) };
            if (result.waited) grant.waited = true;
            return grant;
          }
          if (result.code === "busy") return result;
          if (!toldQueued && result.code === "queued") {
            toldQueued = true;
            input.pollMs = pollMs;
            request.onQueued!();
          }
          // "queued": the poll ended; "cancelled" without an abort: the wait deadline passed (a late
          // poll), so join again. Either way the next round decides.
        }
      } finally {
        acquired?.();
        aborted.dispose();
      }
    },
  };
}

/** Leave the queue (or free a slot granted just before the abort) and answer cancelled. */
async function leave(stub: GateStub, callId: string, answer: SlotGrant): Promise<SlotGrant> {
  // On failure the waiter's deadline or the holder's lease reclaims it.
  await stub.cancel(callId).catch(() => undefined);
  return answer;
}

/** Release never throws: when it cannot land (overloaded, or failing after its retries) the lease reclaims the slot. */
async function releaseSlot(stubFor: (gate: string) => GateStub, gate: string, callId: string): Promise<void> {
  await callDurable(() => stubFor(gate), (stub) => stub.release(callId)).catch(() => undefined);
}

/** Deferred releases in one round trip; never throws (what does not land, the leases reclaim). */
async function releaseAll(stubFor: (gate: string) => GateStub, gate: string, callIds: string[]): Promise<void> {
  await callDurable(() => stubFor(gate), (stub) => stub.releaseAll(callIds)).catch(() => undefined);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

function abortPromise(signal: AbortSignal | undefined): { promise: Promise<typeof ABORTED>; dispose(): void } {
  if (!signal) return { promise: new Promise(() => {}), dispose() {} };
  let onAbort = () => {};
  const promise = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}
