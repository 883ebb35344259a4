/**
 * One concurrency gate (tenant + tool or group [+ resource key]) as a Durable Object. The logic is
 * the pure gate-queue; this class persists its changes to SQLite, holds queued acquire RPCs open
 * until they are granted, and drives lease expiry with the alarm.
 */
import { DurableObject } from "cloudflare:workers";
import {
  acquireSlot,
  expireDue,
  extendLeases,
  leaveSlot,
  nextDeadline,
  othersWaiting,
  releaseSlots,
  settlements,
  waitEnd,
} from "../../src/gates/queue";
import type { GateChange, GateState, Holder, Transition } from "../../src/gates/queue";
import { busyMessage } from "../../src/gates/waits";
import { transact } from "../durable/transact";
import { tenantLedger } from "../ledger/address";
import { tenantGates } from "./address";
import {
  MAX_KEPT_SLOTS,
  WAIT_GRACE_MS,
  type GateAcquireInput,
  type GateAcquireResult,
  type GateKeepInput,
  type GateKeepResult,
  type GateSnapshot,
} from "./protocol";
import { loadState, migrate, persist, readMeta, writeMeta } from "./store";

/** What a caller past its longest wait (policy concurrency.maxWaitMs) is told. */
const MAX_WAIT_MESSAGE = "waited the longest time its policy allows";
/** How long gate changes are gathered into one gate.changed event. */
const ANNOUNCE_MS = 100;
/** An empty gate idle this long forgets its state and leaves its tenant's index (see forget()). */
export const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

/** A grant as the caller hears it: the lease's end, and how long it still runs by the gate's clock. */
function granted(
  holder: Holder,
  state: GateState,
  isolate: string | undefined,
): Extract<GateAcquireResult, { ok: true }> {
  return {
    ok: true,
    expiresAt: holder.expiresAt,
    validMs: holder.expiresAt - Date.now(),
    queueDepth: state.waiters.length,
    othersWaiting: othersWaiting(state, isolate),
  };
}

export class Gate extends DurableObject<Env> {
  private state: GateState | undefined;
  /** The rules as last written to SQL (JSON), so a transition writes them only when they change. */
  private saved = "";
  /** Open acquire RPCs of queued calls, woken by the transition that grants or drops them. */
  private waiting = new Map<string, Array<(result: GateAcquireResult) => void>>();
  private alarmAt: number | null = null;
  /** The index this gate is listed in (its tenant's), once registered. */
  private indexed: string | undefined;
  private gateName: string | undefined;
  /** Whose gate this is, as the acquire input says: its index lists it, its event stream hears it. */
  private tenant: string | undefined;
  private announcing = false;
  /** When a transition last changed this gate (or when the object woke up): its idle time starts there. */
  private lastActive = Date.now();
  forgetAfterMs = FORGET_AFTER_MS;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage.sql);
    this.indexed = readMeta(ctx.storage.sql, "index");
    this.gateName = readMeta(ctx.storage.sql, "gate");
    // Gates stored before their tenant was: the index they registered in is their tenant's.
    this.tenant = readMeta(ctx.storage.sql, "tenant") ?? this.indexed;
    void ctx.blockConcurrencyWhile(async () => {
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  async acquire(input: GateAcquireInput): Promise<GateAcquireResult> {
    if (this.gateName === undefined) writeMeta(this.ctx.storage.sql, "gate", (this.gateName = input.gate));
    if (this.tenant === undefined) writeMeta(this.ctx.storage.sql, "tenant", (this.tenant = input.tenant));
    if (this.indexed !== input.tenant) this.register(input.gate, input.tenant);
    const released = input.releases?.slice(0, MAX_KEPT_SLOTS) ?? [];
    const outcome = this.apply((s, now) => {
      // Folded releases first: the slots they free go to the waiters ahead of this caller.
      const freed = releaseSlots(s, released, now).changes;
      const asked = acquireSlot(
        s,
        { ...input, waitDeadline: now + input.pollMs + (input.waitGraceMs ?? WAIT_GRACE_MS) },
        now,
      );
      return { outcome: asked.outcome, changes: freed.length > 0 ? [...freed, ...asked.changes] : asked.changes };
    });
    if (outcome.status === "granted") return granted(outcome.holder, this.state!, input.isolate);
    if (outcome.status === "busy") {
      // A caller whose longest wait ended between its polls is told so, as one woken by that end is.
      const full = () => busyMessage(this.state?.holders.size ?? 0, this.state?.waiters.length ?? 0);
      const message = outcome.reason === "max_wait" ? MAX_WAIT_MESSAGE : full();
      return { ok: false, code: "busy", message, retryAfterMs: outcome.retryAfterMs };
    }
    const { position } = outcome;
    return new Promise<GateAcquireResult>((resolve) => {
      const list = this.waiting.get(input.callId) ?? [];
      const wake = (result: GateAcquireResult) => {
        clearTimeout(timer);
        // A grant counts the waiters of other isolates than this caller's.
        resolve(result.ok ? { ...result, othersWaiting: othersWaiting(this.state!, input.isolate) } : result);
      };
      // Answer `queued` at the end of the poll; the waiter keeps its place if it comes back in time.
      // A poll ends early when the waiter's longest wait does: that transition answers it busy.
      const end = waitEnd(input);
      const endPoll = () => {
        if (end !== undefined && Date.now() >= end) this.apply(expireDue);
        const rest = (this.waiting.get(input.callId) ?? []).filter((w) => w !== wake);
        if (rest.length > 0) this.waiting.set(input.callId, rest);
        else this.waiting.delete(input.callId);
        resolve({ ok: false, code: "queued", position });
      };
      const timer = setTimeout(endPoll, Math.max(0, Math.min(input.pollMs, (end ?? Infinity) - Date.now())));
      list.push(wake);
      this.waiting.set(input.callId, list);
    });
  }

  /** The holder is done: free its slot for the next waiter. */
  async release(callId: string): Promise<{ ok: true; was: "holder" | "waiter" | "absent" }> {
    return { ok: true, was: this.apply((s, now) => leaveSlot(s, callId, "released", now)) };
  }

  /** Several holders are done (slots an isolate kept and gives back): one transaction. */
  async releaseAll(callIds: string[]): Promise<{ ok: true; released: number }> {
    return { ok: true, released: this.apply((s, now) => releaseSlots(s, callIds.slice(0, MAX_KEPT_SLOTS), now)) };
  }

  /**
   * An isolate keeps slots to pass them on to its own next calls: their leases run on while nobody
   * waits. Its releases go first, so the slots they free go to the waiters. The answer's queueDepth
   * tells it whether others wait (then it gives its slots back as they come free).
   */
  async keep(input: GateKeepInput): Promise<GateKeepResult> {
    const released = input.releases?.slice(0, MAX_KEPT_SLOTS) ?? [];
    const held = this.apply((s, now) => {
      const freed = releaseSlots(s, released, now).changes;
      const kept = extendLeases(s, input.slots.slice(0, MAX_KEPT_SLOTS), input.leaseMs, now, input.isolate);
      return {
        outcome: kept.outcome.map((h) => ({ callId: h.callId, validMs: h.expiresAt - now })),
        changes: [...freed, ...kept.changes],
      };
    });
    return { held, queueDepth: this.state!.waiters.length, othersWaiting: othersWaiting(this.state!, input.isolate) };
  }

  /** The caller gave up: leave the queue, or free the slot if the grant raced the cancel. */
  async cancel(callId: string): Promise<{ ok: true; was: "holder" | "waiter" | "absent" }> {
    return { ok: true, was: this.apply((s, now) => leaveSlot(s, callId, "cancelled", now)) };
  }

  async snapshot(): Promise<GateSnapshot> {
    this.apply(expireDue);
    const s = this.state!;
    return {
      gate: this.gateName ?? this.ctx.id.toString(),
      limit: s.rules.limit,
      maxQueue: s.rules.maxQueue,
      holders: [...s.holders.values()],
      queueDepth: s.waiters.length,
      queued: s.waiters.map(({ callId, tool, since }) => ({ callId, tool, since })),
    };
  }

  /**
   * Reclaims expired leases and overdue waiters, and forgets a gate left empty for forgetAfterMs.
   * Running late or twice is harmless.
   */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    this.apply(expireDue);
    if (this.isEmpty() && Date.now() >= this.lastActive + this.forgetAfterMs) this.forget();
  }

  private isEmpty(): boolean {
    return !!this.state && this.state.holders.size === 0 && this.state.waiters.length === 0 && this.waiting.size === 0;
  }

  /**
   * An idle empty gate drops its rows and leaves its tenant's index, so gates keyed per resource do not
   * pile up. Nothing is lost: an empty gate holds no slot and no place, and its limit comes with every
   * acquire, so the next acquire starts it afresh (and lists it again). Synchronous, so no acquire can
   * interleave; the index ignores the removal if the gate registered again since it went idle.
   */
  private forget(): void {
    const gate = this.gateName;
    const index = this.indexed;
    const idleSince = this.lastActive;
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM slots");
    sql.exec("DELETE FROM meta");
    this.state = undefined;
    this.gateName = undefined;
    this.tenant = undefined;
    this.indexed = undefined;
    this.alarmAt = null;
    this.ctx.storage.deleteAlarm().catch(() => undefined);
    if (gate && index) {
      tenantGates(this.env, index)
        .index()
        .unregister(gate, idleSince)
        .catch(() => undefined);
    }
  }

  /**
   * One synchronous check-and-write: the transition and its SQL mirror run in one transaction with
   * no await, so requests and alarms interleaving in this object always see a consistent gate.
   */
  private apply<T>(step: (state: GateState, now: number) => Transition<T>): T {
    const sql = this.ctx.storage.sql;
    // A transaction that throws rolled back: the state is reloaded from SQL and the step runs once more.
    const result: Transition<T> = transact(
      this.ctx.storage,
      () => {
        if (!this.state) {
          this.state = loadState(sql);
          this.saved = JSON.stringify(this.state.rules);
        }
        const transition = step(this.state, Date.now());
        this.saved = persist(sql, this.state, transition.changes, this.saved);
        return transition;
      },
      () => (this.state = undefined),
    );
    if (result.changes.length > 0) this.lastActive = Date.now();
    this.wake(result.changes);
    this.scheduleAlarm();
    // A longer lease is not news to anyone watching the gate.
    if (result.changes.some((c) => c.type !== "extend")) this.announce();
    return result.outcome;
  }

  /**
   * gate.changed on the tenant's event stream, coalesced: a burst of acquires and releases within
   * ANNOUNCE_MS becomes one event with the state after it. Best effort: events are for watching.
   */
  private announce(): void {
    if (this.announcing || !this.gateName || !this.tenant || !this.env.LEDGER) return;
    this.announcing = true;
    setTimeout(() => {
      this.announcing = false;
      const s = this.state;
      const gate = this.gateName;
      const tenant = this.tenant;
      if (!s || !gate || !tenant) return;
      const event = {
        type: "gate.changed",
        at: Date.now(),
        gate,
        limit: s.rules.limit,
        holders: [...s.holders.values()].map(({ callId, tool }) => ({ callId, tool })),
        queueDepth: s.waiters.length,
      };
      tenantLedger(this.env, tenant)
        .for(gate)
        .publish(event)
        .catch(() => undefined);
    }, ANNOUNCE_MS);
  }

  private wake(changes: GateChange[]): void {
    for (const settled of settlements(changes)) {
      const list = this.waiting.get(settled.callId);
      if (!list) continue;
      this.waiting.delete(settled.callId);
      const result: GateAcquireResult =
        "holder" in settled
          ? { ...granted(settled.holder, this.state!, undefined), waited: true }
          : settled.reason === "max_wait"
            ? { ok: false, code: "busy", message: MAX_WAIT_MESSAGE, retryAfterMs: settled.retryAfterMs ?? 0 }
            : { ok: false, code: "cancelled", message: `left the queue (${settled.reason})` };
      for (const wake of list) wake(result);
    }
  }

  /** Keep the alarm at or before the next due lease or wait deadline; a late alarm just re-arms. */
  private scheduleAlarm(): void {
    // Nothing due: a registered gate still wakes once it has been idle long enough to forget.
    const due =
      (this.state && nextDeadline(this.state)) ??
      (this.gateName !== undefined ? this.lastActive + this.forgetAfterMs : undefined);
    if (due === undefined || (this.alarmAt !== null && this.alarmAt <= due)) return;
    this.alarmAt = due;
    this.ctx.storage.setAlarm(due).catch(() => (this.alarmAt = null));
  }

  /** List this gate in its tenant's index once; a failure retries on the next acquire. */
  private register(gate: string, index: string): void {
    this.indexed = index;
    tenantGates(this.env, index)
      .index()
      .register(gate, Date.now())
      .then(
        () => writeMeta(this.ctx.storage.sql, "index", index),
        () => (this.indexed = undefined),
      );
  }
}
