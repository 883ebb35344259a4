/**
 * The Worker's Limiter: one Gate Durable Object per gate key, so a tool's concurrency policy holds
 * across every request, isolate and location. Queued calls long-poll the gate and re-attach by call
 * id (a broken stub or the end of a poll keeps their place); an abort leaves the queue.
 */
import type { Limiter, SlotGrant, SlotRequest } from "../../src/gates/limiter";
import { afterFailure, callDurable, DurableUnavailable } from "../durable/call";
import type { GatesAddress, GateStub } from "./address";
import type { GateAcquireInput, GateAcquireResult } from "./protocol";
import { localWaitLeft } from "../../src/gates/slot-pool";
import type { GatePool, GateTurn, LocalOutcome, LocalWait, PooledSlot, SlotPools } from "../../src/gates/slot-pool";

export interface GateLimiterOptions {
  /** How long one acquire RPC waits in the queue before re-attaching. Default 10 s. */
  pollMs?: number;
  /**
   * How long a call with onQueued waits in the queue before it is told (the first poll's length).
   * Shorter waits cost the journal nothing: no claim, no watch. Default QUIET_WAIT_MS.
   */
  quietWaitMs?: number;
  /**
   * Fresh stubs to try after a retryable RPC failure before giving up (an overloaded gate is never retried). Default 2.
   */
  retries?: number;
  /**
   * The request's ctx.waitUntil. Given one, release() hands the release RPC to it and returns at
   * once: the answer does not wait for the gate's round trip (the slot frees when it lands).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * With waitUntil: this isolate's kept slots (src/gates/slot-pool.ts). A finished call's slot passes to the
   * isolate's next call of the same gate from memory while nobody waits at the gate; a slot nobody
   * takes within lingerMs goes back. Without it, each call acquires and releases at the gate.
   */
  pools?: SlotPools;
  /** How long a kept slot nobody uses stays with the isolate. Default LINGER_MS. */
  lingerMs?: number;
  /** How long a call waits in its isolate for one of its slots before it waits at the gate. Default LOCAL_WAIT_MS. */
  localWaitMs?: number;
}

/**
 * How long a call waits in its isolate for one of the isolate's slots before it waits at the gate
 * instead: a longer wait is listed by GET /v1/gates, as every wait was before isolates kept slots.
 */
export const LOCAL_WAIT_MS = 250;

/**
 * How long a finished call's slot stays with its isolate for the isolate's next call when nobody
 * waits. Only a caller arriving meanwhile from another isolate can feel it (the gate cannot tell an
 * idle isolate that it waits).
 */
export const LINGER_MS = 100;

/**
 * A wait this short is not announced to the caller's journal: a waiting call is then claimed and
 * watched as a running one is (a read-only call from its first second, others from 250 ms), and one
 * granted after any wait still asks its journal whether a cancel was accepted before it starts.
 */
export const QUIET_WAIT_MS = 1_000;

const ABORTED = Symbol("aborted");

/** One call's ask for a slot, as it goes from waiting in its isolate to waiting at the gate. */
interface Ask {
  request: SlotRequest;
  /** When the call first asked: its longest wait counts from here, across every re-attach. */
  askedAt: number;
  /** The caller was told it waits (or wants no word): once it has waited quietWaitMs, here or at the gate. */
  toldQueued: boolean;
  /** It waited among its isolate's calls before it asked the gate. */
  waitedHere: boolean;
}

const cancelled = (): SlotGrant => ({
  ok: false,
  code: "cancelled",
  message: "the caller gave up while waiting for a slot",
});

/** The limiter of one tenant's calls: its gates (tenantGates) list themselves in its index. */
export function createGateLimiter(gates: GatesAddress, options: GateLimiterOptions = {}): Limiter {
  const pollMs = options.pollMs ?? 10_000;
  const quietWaitMs = options.quietWaitMs ?? QUIET_WAIT_MS;
  const retries = options.retries ?? 2;
  const lingerMs = options.lingerMs ?? LINGER_MS;
  const localWaitMs = options.localWaitMs ?? LOCAL_WAIT_MS;
  const stubFor = (gate: string) => gates.for(gate);
  const { waitUntil } = options;
  const pools = waitUntil ? options.pools : undefined;

  /** Slots of a pool go back to the gate in one round trip. */
  const giveBack = (gate: string, ids: string[]): void => {
    if (ids.length === 0) return;
    waitUntil!(ids.length === 1 ? releaseSlot(stubFor, gate, ids[0]!) : releaseAll(stubFor, gate, ids));
  };

  /** While the pool passes slots on, a keep before its quiet time or its leases run short (off every call's path). */
  const keepUp = (gate: string, pool: GatePool): void => {
    if (!pool.needsKeep(Date.now())) return;
    pool.keeping = true;
    const sentAt = Date.now();
    const slots = [...pool.slots.keys()];
    const keep = callDurable(
      () => stubFor(gate),
      (stub) => stub.keep({ slots, leaseMs: pool.leaseAtGate(pool.leaseMs), isolate: pool.isolate }),
    ).then(
      (answer) => {
        pool.keeping = false;
        giveBack(gate, pool.kept(slots, answer.held, answer.othersWaiting, sentAt));
      },
      // Unanswered: nothing is passed on past the quiet time; the leases still cover what runs.
      () => (pool.keeping = false),
    );
    waitUntil!(keep);
  };

  /** A grant of a pooled slot: its release passes the slot on, keeps it idle a while, or gives it back. */
  const pooledGrant = (gate: string, pool: GatePool, slot: PooledSlot, waited: boolean): SlotGrant => {
    const since = Date.now();
    keepUp(gate, pool);
    const grant: SlotGrant = {
      ok: true,
      release: once(() => {
        const now = Date.now();
        const freed = pool.free(slot, now, now - since);
        if (freed === "return") giveBack(gate, [slot.id]);
        else if (freed === "idle") {
          const turn = slot.turn;
          waitUntil!(sleep(lingerMs).then(() => pool.expire(slot, turn) && giveBack(gate, [slot.id])));
        } else keepUp(gate, pool);
        return Promise.resolve();
      }),
    };
    if (waited) grant.waited = true;
    return grant;
  };

  return {
    async acquire(request: SlotRequest): Promise<SlotGrant> {
      const { signal } = request;
      if (signal?.aborted) return cancelled();
      // Fixed once, so every re-attach counts the longest wait from the same moment.
      const ask: Ask = { request, askedAt: Date.now(), toldQueued: !request.onQueued, waitedHere: false };
      const pool = pools?.of(request.gate);
      if (!pool) return askGate(ask);
      const admitted = pool.admit(request, ask.askedAt);
      if ("slot" in admitted) return pooledGrant(request.gate, pool, admitted.slot, false);
      if ("busy" in admitted) return { ok: false, code: "busy", ...admitted.busy };
      let turn: GateTurn;
      if ("wait" in admitted) {
        const told = () => (ask.toldQueued = true);
        const local = await waitHere(admitted.wait, ask, quietWaitMs, localWaitMs, told);
        if (local === ABORTED) return cancelled();
        ask.waitedHere = true;
        if ("slot" in local) return pooledGrant(request.gate, pool, local.slot, true);
        // Sent to the gate (others wait there, this isolate's slots went back, or its wait here ended).
        turn = local.turn;
      } else turn = admitted.turn;
      // A caller that gives up leaves its turn at once: its request may end before a finally would run.
      const leaveTurn = () => turn.done();
      signal?.addEventListener("abort", leaveTurn, { once: true });
      try {
        // Earlier calls of this isolate send their acquires first, so the gate queues them first.
        if (!(await untilTurn(turn, signal))) return cancelled();
        return await askGate(ask, pool, turn);
      } finally {
        signal?.removeEventListener("abort", leaveTurn);
        leaveTurn();
      }
    },
  };

  /** The call asks its gate, and waits there (long polls, re-attaching by call id) until granted or refused. */
  async function askGate(ask: Ask, pool?: GatePool, turn?: GateTurn): Promise<SlotGrant> {
    const { request, askedAt } = ask;
    const { signal, callId } = request;
    const input: GateAcquireInput = {
      gate: request.gate,
      callId,
      tool: request.tool,
      rules: request.rules,
      leaseMs: pool ? pool.leaseAtGate(request.leaseMs) : request.leaseMs,
      askedAt,
      pollMs: ask.toldQueued ? pollMs : Math.max(0, quietWaitMs - (Date.now() - askedAt)),
      tenant: gates.tenant,
      ...(pool ? { isolate: pool.isolate } : {}),
    };
    // Idle slots this isolate cannot pass to this call go back with its acquire, in one transaction.
    const releases = pool?.takeIdle() ?? [];
    if (releases.length > 0) input.releases = releases;
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
        const sentAt = Date.now();
        try {
          turn?.asked();
          result = await Promise.race([stub.acquire(input), aborted.promise]);
        } catch (error) {
          // Acquire is idempotent per call id, so a new stub re-attaches to the same slot or place.
          const next = afterFailure(error, ++failures, retries + 1);
          if ("fail" in next) {
            // Overloaded or unreachable: the call answers busy with a hint, like a full queue.
            if (next.fail instanceof DurableUnavailable)
              return { ok: false, code: "busy", message: next.fail.message, retryAfterMs: next.fail.retryAfterMs };
            throw next.fail;
          }
          await new Promise((resolve) => setTimeout(resolve, next.retryInMs));
          stub = stubFor(request.gate);
          continue;
        }
        if (result === ABORTED) return await leave(stub, callId, cancelled());
        // The gate applied the releases with this answer (a failed RPC above keeps them for the retry).
        delete input.releases;
        if (result.ok) {
          const waited = result.waited === true || ask.waitedHere;
          if (pool) {
            const { slot, giveBack: back } = pool.add(callId, result.validMs, result.othersWaiting, sentAt);
            giveBack(request.gate, back);
            return pooledGrant(request.gate, pool, slot, waited);
          }
          const grant: SlotGrant = { ok: true, release: once(() => release(request.gate, callId)) };
          if (waited) grant.waited = true;
          return grant;
        }
        if (result.code === "busy") return result;
        if (!ask.toldQueued && result.code === "queued") {
          ask.toldQueued = true;
          input.pollMs = pollMs;
          request.onQueued!();
        }
        // "queued": the poll ended; "cancelled" without an abort: the wait deadline passed (a late
        // poll), so join again. Either way the next round decides.
      }
    } finally {
      aborted.dispose();
    }
  }

  /** Without a pool: the slot goes back at once (through waitUntil when there is one). */
  function release(gate: string, callId: string): Promise<void> {
    if (!waitUntil) return releaseSlot(stubFor, gate, callId);
    waitUntil(releaseSlot(stubFor, gate, callId));
    return Promise.resolve();
  }
}

/**
 * A call waits among its isolate's calls for one of the isolate's slots: answered a slot, its turn at
 * the gate (others wait there, it waited localWaitMs or its longest wait, or the slots went back) or
 * ABORTED. Told it waits (onQueued) once it has waited quietWaitMs.
 */
async function waitHere(
  waiter: LocalWait,
  ask: Ask,
  quietWaitMs: number,
  localWaitMs: number,
  told: () => void,
): Promise<LocalOutcome | typeof ABORTED> {
  const { request } = ask;
  const { signal } = request;
  let aborted = false;
  const onAbort = () => (aborted = waiter.leave());
  signal?.addEventListener("abort", onAbort, { once: true });
  // After localWaitMs the call waits at the gate, where GET /v1/gates lists it; at its longest wait
  // it asks the gate, which answers busy (max_wait) or grants a free slot.
  const left = localWaitLeft({ rules: request.rules, askedAt: ask.askedAt }, localWaitMs, Date.now());
  const timeUp = setTimeout(() => waiter.expire(), left);
  const quiet = request.onQueued
    ? setTimeout(() => {
        told();
        request.onQueued!();
      }, quietWaitMs)
    : undefined;
  try {
    // Read on this request's own timers: whoever settled the wait runs in another request (slot-pool.ts).
    let outcome = waiter.outcome();
    while (!outcome && !aborted) {
      await sleep(WAKE_CHECK_MS);
      outcome = waiter.outcome();
    }
    return aborted || !outcome ? ABORTED : outcome;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    clearTimeout(timeUp);
    if (quiet !== undefined) clearTimeout(quiet);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until every earlier call of the isolate sent its acquire (on this request's timers); false: the caller gave up. */
async function untilTurn(turn: GateTurn, signal: AbortSignal | undefined): Promise<boolean> {
  while (!turn.mayAsk()) {
    if (signal?.aborted) return false;
    await sleep(WAKE_CHECK_MS);
  }
  return !signal?.aborted;
}

/**
 * How often a call waiting in its isolate looks whether it was settled: the only delay a slot passed
 * from memory adds (a local wait lasts at most localWaitMs, so at most localWaitMs / this checks).
 */
const WAKE_CHECK_MS = 2;

/** Leave the queue (or free a slot granted just before the abort) and answer cancelled. */
async function leave(stub: GateStub, callId: string, answer: SlotGrant): Promise<SlotGrant> {
  // On failure the waiter's deadline or the holder's lease reclaims it.
  await stub.cancel(callId).catch(() => undefined);
  return answer;
}

/** Release never throws: when it cannot land (overloaded, or failing after its retries) the lease reclaims the slot. */
async function releaseSlot(stubFor: (gate: string) => GateStub, gate: string, callId: string): Promise<void> {
  await callDurable(
    () => stubFor(gate),
    (stub) => stub.release(callId),
  ).catch(() => undefined);
}

/** Deferred releases in one round trip; never throws (what does not land, the leases reclaim). */
async function releaseAll(stubFor: (gate: string) => GateStub, gate: string, callIds: string[]): Promise<void> {
  await callDurable(
    () => stubFor(gate),
    (stub) => stub.releaseAll(callIds),
  ).catch(() => undefined);
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
