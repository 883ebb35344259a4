/**
 * Slots an isolate keeps to pass on to its own next calls of the same gate, from memory: a block of
 * the gate's slots leased to the isolate. The gate still holds each slot under the call id it first
 * granted it to, with a lease the isolate extends (worker/gates/limiter.ts sends the `keep` RPCs
 * this pool asks for). The rules that keep the gate's guarantees:
 * - a slot is passed on only while the gate's lease covers the new call's whole lease (coveredUntil,
 *   on this isolate's clock, from the gate's answer and the time its request left: never later than
 *   the gate's own end), so the limit holds across isolates whatever happens to this one;
 * - and only within keepMs of the gate last answering that nobody waited there (quietUntil): a call
 *   of another isolate that waits at the gate is heard of at the next keep, and from then on this
 *   isolate gives its slots back as they come free and sends its own waiting calls to the gate.
 * One order for the isolate's calls, wherever they wait: a call goes to the gate only behind every
 * earlier call of the isolate (those waiting here go first, and acquires leave in the order the calls
 * came: the line), and a freed slot passes to a call waiting here only while none waits at the gate.
 * Data, local waiters and the decisions only (no stubs, no promises, no timers): requests share it,
 * each sends its own RPCs and reads its own outcome on its own timers (worker/gates/limiter.ts). A
 * slot lost with its isolate comes back when its lease ends, as any holder's.
 */
import type { GateRules } from "./rules";
import { averageHold, busyMessage, DEFAULT_HOLD_MS, queueFull, retryAfterMs, waitEnd } from "./waits";

/** A slot of the gate this isolate holds. */
export interface PooledSlot {
  /** The call id the gate granted the slot to: its holder row there. */
  readonly id: string;
  /**
   * Until when (this isolate's clock) the gate's lease runs: a call starts on the slot only if
   * its own lease ends by then.
   */
  coveredUntil: number;
  busy: boolean;
  /** Counts hand-overs, so the end of an earlier idle spell does nothing. */
  turn: number;
}

/**
 * A call of this isolate waiting for one of its slots: settled with a slot, or with its turn at the
 * gate. Settling only writes `outcome`: the call that frees a slot runs in another request, and
 * a promise it resolved would resume the waiting call inside that request, whose end (answer sent,
 * waitUntil done) then drops the woken call's pending I/O and timers, so it would hang. The waiting
 * call reads `outcome` on timers of its own request instead (limiter.ts).
 */
interface LocalWaiter {
  leaseMs: number;
  outcome?: LocalOutcome;
}

/** What a call waiting in its isolate got: one of the isolate's slots (now busy with it), or its turn at the gate. */
export type LocalOutcome = { slot: PooledSlot } | { turn: GateTurn };

/** A call's place among its isolate's waiting calls. */
export interface LocalWait {
  /** Set once the call is settled. */
  outcome(): LocalOutcome | undefined;
  /** Takes the call out while it is still unsettled (abort); false once it was settled. */
  leave(): boolean;
  /** Its wait here ended (localWaitMs, or its longest wait): to the gate, behind the calls waiting ahead of it. */
  expire(): void;
}

/**
 * A call of this isolate that asks the gate. Calls send their first acquire in the order they got
 * their turns (the order they came), so the gate queues them in that order; until the turn is done
 * the call counts as waiting at the gate, and freed slots go back there for it.
 */
export interface GateTurn {
  /** Every call that got its turn earlier has sent its acquire: this one may send its own. */
  mayAsk(): boolean;
  /** Its first acquire is being sent (called in the same turn of the event loop as the send). */
  asked(): void;
  /** Granted, refused or given up: no longer waiting at the gate. Idempotent. */
  done(): void;
}

/** What a finished call's slot does: passed to a waiting call, kept idle for a while, or given back now. */
export type FreedSlot = "passed" | "idle" | "return";

/** A call of this isolate asks for a slot: its gate's rules and its lease. */
export interface PoolCall {
  rules: GateRules;
  leaseMs: number;
}

/**
 * What a new call does: runs now on one of the isolate's slots, waits in the isolate for one, asks the
 * gate (behind the isolate's earlier calls), or answers busy (as many wait here as the queue may hold).
 */
export type Admission =
  | { slot: PooledSlot }
  | { wait: LocalWait }
  | { turn: GateTurn }
  | { busy: { message: string; retryAfterMs: number } };

export class GatePool {
  readonly slots = new Map<string, PooledSlot>();
  private readonly waiters: LocalWaiter[] = [];
  /**
   * Other isolates' calls were waiting at the gate at its last answer: nothing is passed on,
   * slots go back as they free.
   */
  contended = false;
  /** Slots are passed on until then: keepMs after the gate last answered that no other isolate's call waited. */
  private quietUntil = 0;
  /** The gate's limit as the newest call of this isolate brought it. */
  limit = 1;
  /** The longest lease a call of this gate asked for here: what a kept slot's lease must cover. */
  leaseMs = 0;
  /** A keep RPC is under way. */
  keeping = false;
  /** Moving average of how long a slot is held here: only feeds the busy retry-after hint. */
  avgHoldMs = DEFAULT_HOLD_MS;

  /** Calls of this isolate waiting at the gate: a freed slot goes back to the gate for them (they came first). */
  private atGate = 0;
  /** Calls with a turn at the gate that have not sent their first acquire yet, in the order they got it. */
  private readonly line: Array<{ since: number }> = [];

  /**
   * `isolate`: this isolate's name at the gate, so its own waiting calls do not count as others'.
   * `clock`: for the line's patience only (the other decisions are told the time).
   */
  constructor(
    readonly keepMs: number,
    readonly isolate: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * A new call (asking at `now`): a slot kept idle when nobody waits here or at the gate and the
   * isolate passes its slots on; else a wait here while it holds every slot busy (unless the call may
   * not wait: maxWaitMs 0), busy once the calls waiting here fill the queue; else its turn at the gate.
   */
  admit(call: PoolCall, now: number): Admission {
    // The newest limit wins, as at the gate; a kept slot's lease must cover the longest call's.
    this.limit = call.rules.limit;
    this.leaseMs = Math.max(this.leaseMs, call.leaseMs);
    const slot = this.take(call.leaseMs, now);
    if (slot) return { slot };
    if (call.rules.maxWaitMs === 0 || !this.mayWait(now)) return { turn: this.toGate() };
    if (queueFull(this.waiting, call.rules.maxQueue)) return { busy: this.busy() };
    return { wait: this.wait(call.leaseMs) };
  }

  /** The lease a call asks the gate for: a slot this isolate may pass on covers a call it passes it to whole. */
  leaseAtGate(leaseMs: number): number {
    return leaseMs + this.keepMs;
  }

  /** An idle slot that covers a new call's lease, if nobody waits here or at the gate (first come, first served). */
  private take(leaseMs: number, now: number): PooledSlot | undefined {
    if (this.waiters.length > 0 || this.atGate > 0 || !this.passing(now)) return undefined;
    for (const slot of this.slots.values()) {
      if (!slot.busy && slot.coveredUntil >= now + leaseMs) return this.hold(slot);
    }
    return undefined;
  }

  /**
   * Whether a call may wait here for a slot to come free: this isolate holds every slot or its calls
   * waiting at the gate will (they are served first), each held slot is busy (an idle one that could
   * not be taken goes back with the call's acquire), and no other isolate's call waits at the gate.
   */
  mayWait(now: number): boolean {
    if (!this.passing(now) || this.slots.size + this.atGate < this.limit) return false;
    for (const slot of this.slots.values()) if (!slot.busy) return false;
    return true;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Wait for a slot of this isolate (or a turn at the gate); the caller reads the outcome itself. */
  private wait(leaseMs: number): LocalWait {
    const waiter: LocalWaiter = { leaseMs };
    this.waiters.push(waiter);
    return {
      outcome: () => waiter.outcome,
      leave: () => {
        const index = this.waiters.indexOf(waiter);
        if (index < 0) return false;
        this.waiters.splice(index, 1);
        return true;
      },
      expire: () => {
        const index = this.waiters.indexOf(waiter);
        // The calls that came before it go to the gate first (and newer ones stay: they came after all of these).
        for (const ahead of this.waiters.splice(0, index + 1)) ahead.outcome = { turn: this.queueAtGate() };
      },
    };
  }

  /** A call goes to the gate without waiting here: behind every call of this isolate that waits here or there. */
  private toGate(): GateTurn {
    this.sendWaitersToGate();
    return this.queueAtGate();
  }

  /**
   * A slot the gate granted a call of this isolate: busy with it. `sentAt`: when the request that got the answer left.
   */
  add(id: string, validMs: number, othersWaiting: number, sentAt: number): { slot: PooledSlot; giveBack: string[] } {
    const slot: PooledSlot = { id, coveredUntil: sentAt + validMs, busy: true, turn: 0 };
    this.slots.set(id, slot);
    return { slot, giveBack: this.heard(othersWaiting, sentAt) };
  }

  /** A turn at the gate: last in the line of acquires to send, waiting at the gate until done. */
  private queueAtGate(): GateTurn {
    const place = { since: this.clock() };
    this.line.push(place);
    this.atGate++;
    let done = false;
    const leaveLine = () => {
      const index = this.line.indexOf(place);
      if (index >= 0) this.line.splice(index, 1);
    };
    return {
      mayAsk: () => {
        const index = this.line.indexOf(place);
        // Calls ahead that have not asked for LINE_PATIENCE_MS are taken for gone (their request ended).
        return index === 0 || (index > 0 && this.clock() - this.line[index - 1]!.since > LINE_PATIENCE_MS);
      },
      asked: leaveLine,
      done: () => {
        if (done) return;
        done = true;
        leaveLine();
        this.atGate--;
        // Nothing of this isolate's would come free for the calls waiting here: they go to the gate.
        if (this.waiters.length > 0 && ![...this.slots.values()].some((slot) => slot.busy)) this.sendWaitersToGate();
      },
    };
  }

  /** A call finished with its slot (holding it heldMs). */
  free(slot: PooledSlot, now: number, heldMs: number): FreedSlot {
    this.avgHoldMs = averageHold(this.avgHoldMs, heldMs);
    slot.busy = false;
    slot.turn++;
    if (this.slots.get(slot.id) !== slot) {
      // No longer kept (a keep found it gone): the calls waiting here may find a slot at the gate.
      this.sendWaitersToGate();
      return "return";
    }
    if (this.atGate > 0 || this.slots.size > this.limit) {
      // Calls of this isolate wait at the gate, ahead of those waiting here: it goes back, to them.
      this.slots.delete(slot.id);
      if (!this.passing(now)) this.sendWaitersToGate();
      return "return";
    }
    const next = this.waiters[0];
    if (next && this.passing(now) && slot.coveredUntil >= now + next.leaseMs) {
      this.waiters.shift();
      next.outcome = { slot: this.hold(slot) };
      return "passed";
    }
    if (next || !this.passing(now)) {
      // Nobody here may take it now: it goes back, and the calls waiting here go to the gate, where it frees.
      this.slots.delete(slot.id);
      this.sendWaitersToGate();
      return "return";
    }
    return "idle";
  }

  /** The end of an idle spell: whether the slot, still idle since `turn`, leaves the pool to go back. */
  expire(slot: PooledSlot, turn: number): boolean {
    if (slot.busy || slot.turn !== turn || this.slots.get(slot.id) !== slot) return false;
    this.slots.delete(slot.id);
    return true;
  }

  /** Takes the idle slots out of the pool (the caller gives them back to the gate). */
  takeIdle(): string[] {
    const ids: string[] = [];
    for (const slot of [...this.slots.values()]) {
      if (slot.busy) continue;
      slot.turn++;
      this.slots.delete(slot.id);
      ids.push(slot.id);
    }
    return ids;
  }

  /** Whether a keep is due: slots are being passed on and the quiet time or a lease's cover runs short. */
  needsKeep(now: number): boolean {
    if (this.keeping || this.contended || this.slots.size === 0) return false;
    if (this.quietUntil - now < this.keepMs / 2) return true;
    for (const slot of this.slots.values()) if (slot.coveredUntil - now < this.leaseMs + this.keepMs / 2) return true;
    return false;
  }

  /**
   * The gate's answer to a keep of `sent` sent at sentAt: those it no longer holds leave the pool
   * (slots granted since are not in the answer and stay). Answers the ids to give back.
   */
  kept(
    sent: readonly string[],
    held: ReadonlyArray<{ callId: string; validMs: number }>,
    othersWaiting: number,
    sentAt: number,
  ): string[] {
    const still = new Map(held.map((h) => [h.callId, h.validMs]));
    for (const id of sent) {
      const slot = this.slots.get(id);
      if (!slot) continue;
      const validMs = still.get(id);
      if (validMs === undefined) this.slots.delete(id);
      else slot.coveredUntil = Math.max(slot.coveredUntil, sentAt + validMs);
    }
    // Fewer slots than the limit: the calls waiting here may find one at the gate.
    if (this.slots.size < this.limit) this.sendWaitersToGate();
    return this.heard(othersWaiting, sentAt);
  }

  /** A call refused because the calls waiting here fill the queue: told so, as at a full gate. */
  private busy(): { message: string; retryAfterMs: number } {
    const hint = retryAfterMs(this.waiting, this.limit, this.avgHoldMs);
    return { message: busyMessage(this.slots.size, this.waiting), retryAfterMs: hint };
  }

  /** Holds nothing and nobody waits on it: the pool may be dropped. */
  isEmpty(): boolean {
    return this.slots.size === 0 && this.waiters.length === 0 && !this.keeping && this.atGate === 0;
  }

  /**
   * What the gate said of its queue (at sentAt): no other isolate's call waits, or some do and the idle slots go back.
   */
  private heard(othersWaiting: number, sentAt: number): string[] {
    if (othersWaiting === 0) {
      this.contended = false;
      this.quietUntil = Math.max(this.quietUntil, sentAt + this.keepMs);
      return [];
    }
    this.contended = true;
    this.sendWaitersToGate();
    return this.takeIdle();
  }

  private passing(now: number): boolean {
    return !this.contended && now < this.quietUntil;
  }

  private hold(slot: PooledSlot): PooledSlot {
    slot.busy = true;
    slot.turn++;
    return slot;
  }

  /** Every call waiting here goes to the gate, their turns in the order they came. */
  private sendWaitersToGate(): void {
    for (const waiter of this.waiters.splice(0)) waiter.outcome = { turn: this.queueAtGate() };
  }
}

/** This isolate's pools, one per gate. */
export interface SlotPools {
  of(gate: string): GatePool;
}

/**
 * How long a call waits in line for the calls of its isolate ahead of it to send their acquires: each
 * sends within a few ms of its turn, unless its request ended without a word (then the line goes on).
 */
export const LINE_PATIENCE_MS = 1_000;

/**
 * How long after the gate last said nobody waits an isolate passes its slots on (a kept
 * lease runs this much longer than its call's).
 */
export const KEEP_MS = 400;

/** Pools past this many are pruned of empty ones (per-key gates come and go). */
const PRUNE_ABOVE = 256;

/**
 * How long a call asking at `now` waits among its isolate's calls before it asks the gate: localWaitMs,
 * or less when its longest wait (maxWaitMs) ends sooner (the gate then answers busy, or grants a free slot).
 */
export function localWaitLeft(call: { rules: GateRules; askedAt: number }, localWaitMs: number, now: number): number {
  const end = waitEnd(call);
  return Math.max(0, Math.min(localWaitMs, end === undefined ? Infinity : end - now));
}

/** An isolate's pools, one per gate; `clock` for tests. */
export function createSlotPools(keepMs = KEEP_MS, clock: () => number = Date.now): SlotPools {
  const pools = new Map<string, GatePool>();
  // Named on first use: a Worker may not make random values while its module loads.
  let isolate: string | undefined;
  return {
    of(gate) {
      let pool = pools.get(gate);
      if (pool) return pool;
      if (pools.size >= PRUNE_ABOVE) for (const [name, old] of pools) if (old.isEmpty()) pools.delete(name);
      pools.set(gate, (pool = new GatePool(keepMs, (isolate ??= crypto.randomUUID()), clock)));
      return pool;
    },
  };
}
