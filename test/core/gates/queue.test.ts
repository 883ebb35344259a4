import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  acquireSlot,
  createGateState,
  expireDue,
  extendLeases,
  leaveSlot,
  nextDeadline,
  othersWaiting,
  settlements,
  waitEnd,
} from "../../../src/gates/queue";
import type { AcquireInput } from "../../../src/gates/queue";
import type { GateChange, GateState } from "../../../src/gates/queue";

type ReqOptions = {
  limit?: number;
  maxQueue?: number;
  maxWaitMs?: number;
  askedAt?: number;
  leaseMs?: number;
  waitDeadline?: number;
};
const req = (
  callId: string,
  { limit = 1, maxQueue = 2, maxWaitMs, askedAt = 0, leaseMs = 100, waitDeadline }: ReqOptions = {},
): AcquireInput => ({
  callId,
  tool: "t",
  rules: { limit, maxQueue, ...(maxWaitMs === undefined ? {} : { maxWaitMs }) },
  leaseMs,
  askedAt,
  ...(waitDeadline === undefined ? {} : { waitDeadline }),
});

describe("gate-queue", () => {
  it("grants up to the limit, then queues, then answers busy", () => {
    const s = createGateState();
    expect(acquireSlot(s, req("a"), 0).outcome.status).toBe("granted");
    expect(acquireSlot(s, req("b"), 0).outcome).toMatchObject({ status: "queued", position: 1 });
    expect(acquireSlot(s, req("c"), 0).outcome).toMatchObject({ status: "queued", position: 2 });
    const busy = acquireSlot(s, req("d"), 0).outcome;
    expect(busy).toMatchObject({ status: "busy", reason: "full" });
    expect(busy.status === "busy" && busy.retryAfterMs).toBeGreaterThan(0);
  });

  it("is idempotent per call id", () => {
    const s = createGateState();
    acquireSlot(s, req("a"), 0);
    acquireSlot(s, req("b"), 0);
    expect(acquireSlot(s, req("a"), 5).outcome).toMatchObject({ status: "granted", holder: { since: 0 } });
    expect(acquireSlot(s, req("b", { waitDeadline: 50 }), 5).outcome).toMatchObject({ status: "queued", position: 1 });
    expect(s.holders.size).toBe(1);
    expect(s.waiters.map((w) => w.callId)).toEqual(["b"]);
    expect(s.waiters[0]?.deadline).toBe(50);
  });

  it("treats a malformed limit as 1 and a malformed maxQueue as 0", () => {
    const s = createGateState();
    expect(acquireSlot(s, req("a", { limit: Number.NaN, maxQueue: Number.NaN }), 0).outcome.status).toBe("granted");
    expect(acquireSlot(s, req("b", { limit: Number.NaN, maxQueue: Number.NaN }), 0).outcome.status).toBe("busy");
  });

  it("extends kept leases (never shortens them) while no other isolate's call waits", () => {
    const s = createGateState({ limit: 1, maxQueue: 5 });
    acquireSlot(s, req("a", { maxQueue: 5, leaseMs: 100 }), 0);
    const quiet = extendLeases(s, ["a", "gone"], 1_000, 10, "one");
    expect(quiet.outcome.map((h) => [h.callId, h.expiresAt])).toEqual([["a", 1_010]]);
    expect(quiet.changes).toEqual([{ type: "extend", holder: s.holders.get("a") }]);
    expect(extendLeases(s, ["a"], 50, 20, "one").changes).toEqual([]); // never shorter
    // The isolate's own waiter does not stop it; another's (or one of unknown isolate) does.
    acquireSlot(s, { ...req("b", { maxQueue: 5 }), isolate: "one" }, 30);
    expect(othersWaiting(s, "one")).toBe(0);
    expect(extendLeases(s, ["a"], 2_000, 40, "one").outcome[0]!.expiresAt).toBe(2_040);
    acquireSlot(s, { ...req("c", { maxQueue: 5 }), isolate: "two" }, 50);
    expect([othersWaiting(s, "one"), othersWaiting(s, "two"), othersWaiting(s, undefined)]).toEqual([1, 1, 2]);
    const contended = extendLeases(s, ["a"], 9_000, 60, "one");
    expect([contended.outcome[0]!.expiresAt, contended.changes]).toEqual([2_040, []]);
  });

  it("hands a released slot to the oldest waiter", () => {
    const s = createGateState({ limit: 1, maxQueue: 5 });
    for (const id of ["a", "b", "c"]) acquireSlot(s, req(id, { maxQueue: 5 }), 0);
    const { changes } = leaveSlot(s, "a", "released", 10);
    expect(changes).toEqual([
      { type: "leave", callId: "a", was: "holder", reason: "released" },
      { type: "hold", holder: { callId: "b", tool: "t", since: 10, expiresAt: 110 } },
    ]);
  });

  it("a cancelled waiter leaves and is never granted", () => {
    const s = createGateState();
    acquireSlot(s, req("a"), 0);
    acquireSlot(s, req("b"), 0);
    expect(leaveSlot(s, "b", "cancelled", 1).outcome).toBe("waiter");
    const { changes } = leaveSlot(s, "a", "released", 2);
    expect(changes.some((c) => c.type === "hold")).toBe(false);
    expect(s.holders.size).toBe(0);
  });

  it("reclaims expired leases and overdue waiters once, however often expiry runs", () => {
    const s = createGateState({ limit: 1, maxQueue: 5 });
    acquireSlot(s, req("a", { maxQueue: 5 }), 0);
    acquireSlot(s, req("b", { maxQueue: 5, waitDeadline: 50 }), 0);
    acquireSlot(s, req("c", { maxQueue: 5 }), 0);
    expect(nextDeadline(s)).toBe(50);
    expect(expireDue(s, 60).changes).toEqual([{ type: "leave", callId: "b", was: "waiter", reason: "wait_expired" }]);
    expect(expireDue(s, 60).changes).toEqual([]);
    const late = expireDue(s, 500).changes;
    expect(late.map((c) => c.type)).toEqual(["leave", "hold"]);
    expect(expireDue(s, 500).changes).toEqual([]);
    expect([...s.holders.keys()]).toEqual(["c"]);
  });

  it("a waiter still queued at the end of its maxWaitMs leaves as busy with a retry-after hint, and cannot queue again", () => {
    const s = createGateState({ limit: 1, maxQueue: 5 });
    acquireSlot(s, req("a", { maxQueue: 5 }), 0);
    acquireSlot(s, req("b", { maxQueue: 5, maxWaitMs: 50, waitDeadline: 20 }), 0);
    acquireSlot(s, req("c", { maxQueue: 5 }), 0);
    // Re-attaching moves the poll deadline, never the end of the wait.
    acquireSlot(s, req("b", { maxQueue: 5, maxWaitMs: 90, waitDeadline: 70 }), 10);
    expect({ ...s.waiters[0], waitEnd: waitEnd(s.waiters[0]!) }).toMatchObject({
      callId: "b",
      deadline: 70,
      waitEnd: 50,
    });
    expect(nextDeadline(s)).toBe(50);
    expect(expireDue(s, 49).changes).toEqual([]);
    const { changes } = expireDue(s, 50);
    expect(changes).toEqual([
      { type: "leave", callId: "b", was: "waiter", reason: "max_wait", retryAfterMs: expect.any(Number) },
    ]);
    expect(settlements(changes)).toEqual([{ callId: "b", reason: "max_wait", retryAfterMs: expect.any(Number) }]);
    expect(settlements(changes)[0]).toMatchObject({ retryAfterMs: expect.toSatisfy((ms: number) => ms > 0) });
    // Coming back after its wait ended (a poll that missed the answer): busy, not a new place at the back.
    expect(acquireSlot(s, req("b", { maxQueue: 5, maxWaitMs: 50 }), 60).outcome).toMatchObject({
      status: "busy",
      reason: "max_wait",
    });
    expect(s.waiters.map((w) => w.callId)).toEqual(["c"]);
    expect(expireDue(s, 60).changes).toEqual([]);
  });

  it("maxWaitMs 0: a free slot is granted, otherwise busy at once", () => {
    const s = createGateState({ limit: 1, maxQueue: 5 });
    expect(acquireSlot(s, req("a", { maxQueue: 5, maxWaitMs: 0 }), 0).outcome.status).toBe("granted");
    expect(acquireSlot(s, req("b", { maxQueue: 5, maxWaitMs: 0 }), 0).outcome).toMatchObject({
      status: "busy",
      reason: "max_wait",
    });
    expect(s.waiters).toEqual([]);
  });
});

// Model-based: random acquire / release / cancel / time / alarm sequences against a simple
// reference model, plus the invariants checked directly on the real state.
type Op =
  | { op: "acquire"; id: number; lease: number; wait: number | null; maxWait: number | null }
  | { op: "release" | "cancel"; id: number }
  | { op: "tick"; ms: number }
  | { op: "alarm" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("acquire" as const),
      id: fc.nat(5),
      lease: fc.integer({ min: 1, max: 60 }),
      wait: fc.option(fc.integer({ min: 1, max: 60 })),
      maxWait: fc.option(fc.integer({ min: 0, max: 80 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom("release" as const, "cancel" as const), id: fc.nat(5) }) },
  fc.record({ op: fc.constant("tick" as const), ms: fc.nat(40) }),
  fc.record({ op: fc.constant("alarm" as const) }),
);

/** The reference: holders id → expiry, a plain FIFO array. */
class Model {
  holders = new Map<string, number>();
  queue: { id: string; lease: number; deadline: number | null; until: number | null }[] = [];
  constructor(
    readonly limit: number,
    readonly maxQueue: number,
  ) {}
  tidy(now: number): void {
    for (const [id, exp] of this.holders) if (exp <= now) this.holders.delete(id);
    this.queue = this.queue.filter(
      (w) => (w.deadline === null || w.deadline > now) && (w.until === null || w.until > now),
    );
    while (this.holders.size < this.limit && this.queue.length > 0) {
      const w = this.queue.shift()!;
      this.holders.set(w.id, now + w.lease);
    }
  }
}

interface Row {
  state: "held" | "queued";
  seq: number;
}

/**
 * Replays a transition's changes onto a mirror of rows (what the Durable Object persists) and
 * checks each grant: it goes to the oldest waiter, or to the caller itself when nobody waits.
 * A call that left (released, cancelled, expired) has no row, so it can never be granted later.
 */
function mirror(rows: Map<string, Row>, changes: GateChange[], acquiring?: string): void {
  for (const c of changes) {
    if (c.type === "queue") rows.set(c.waiter.callId, { state: "queued", seq: c.waiter.seq });
    else if (c.type === "leave") rows.delete(c.callId);
    else {
      const id = c.holder.callId;
      const queued = [...rows.entries()].filter(([, r]) => r.state === "queued");
      const oldest = queued.sort((a, b) => a[1].seq - b[1].seq)[0]?.[0];
      if (oldest !== undefined) expect(id).toBe(oldest);
      else expect(rows.has(id) || id !== acquiring).toBe(false);
      rows.set(id, { state: "held", seq: 0 });
    }
  }
}

function checkInvariants(s: GateState, rows: Map<string, Row>, limit: number, maxQueue: number): void {
  expect(s.holders.size).toBeLessThanOrEqual(limit);
  expect(s.waiters.length).toBeLessThanOrEqual(maxQueue);
  // Each holder sits under its own call id, with a lease that ends after it was granted.
  for (const [id, holder] of s.holders) expect([holder.callId, holder.expiresAt > holder.since]).toEqual([id, true]);
  const queued = s.waiters.map((w) => w.callId);
  expect(new Set(queued).size).toBe(queued.length);
  for (const id of queued) expect(s.holders.has(id)).toBe(false);
  const seqs = s.waiters.map((w) => w.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  // Work-conserving: nobody waits while a slot is free.
  if (s.holders.size < limit) expect(s.waiters).toEqual([]);
  // The change list is enough to mirror the state.
  const expected = new Map<string, string>([...s.holders.keys()].map((id) => [id, "held"]));
  for (const id of queued) expected.set(id, "queued");
  expect(new Map([...rows].map(([id, r]) => [id, r.state]))).toEqual(expected);
}

it("model: random sequences keep held ≤ limit, FIFO grants and one slot per call id", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }),
      fc.nat(4),
      fc.array(opArb, { minLength: 10, maxLength: 150, size: "+1" }),
      (limit, maxQueue, ops) => {
        const s = createGateState({ limit, maxQueue });
        const model = new Model(limit, maxQueue);
        const rows = new Map<string, Row>();
        let now = 0;
        for (const o of ops) {
          let changes: GateChange[] = [];
          if (o.op === "tick") now += o.ms;
          else if (o.op === "alarm") changes = expireDue(s, now).changes;
          else if (o.op === "acquire") {
            const id = `c${o.id}`;
            const wait = o.wait === null ? undefined : now + o.wait;
            const until = o.maxWait === null ? undefined : now + o.maxWait;
            const rules = { limit, maxQueue, ...(o.maxWait === null ? {} : { maxWaitMs: o.maxWait }) };
            const t = acquireSlot(
              s,
              { callId: id, tool: "t", rules, leaseMs: o.lease, askedAt: now, waitDeadline: wait },
              now,
            );
            changes = t.changes;
            model.tidy(now);
            const waiter = model.queue.find((w) => w.id === id);
            let want: string;
            if (model.holders.has(id)) want = "granted";
            else if (waiter) (waiter.deadline = wait ?? null), (want = "queued");
            else if (model.holders.size < limit && model.queue.length === 0) {
              model.holders.set(id, now + o.lease);
              want = "granted";
            } else if (model.queue.length >= maxQueue || (until !== undefined && until <= now)) want = "busy";
            else
              model.queue.push({ id, lease: o.lease, deadline: wait ?? null, until: until ?? null }), (want = "queued");
            expect(t.outcome.status).toBe(want);
          } else {
            const id = `c${o.id}`;
            changes = leaveSlot(s, id, o.op === "release" ? "released" : "cancelled", now).changes;
            model.tidy(now);
            model.holders.delete(id);
            model.queue = model.queue.filter((w) => w.id !== id);
          }
          if (o.op !== "tick") model.tidy(now);
          mirror(rows, changes, o.op === "acquire" ? `c${o.id}` : undefined);
          if (o.op !== "tick") {
            expect([...s.holders.keys()].sort()).toEqual([...model.holders.keys()].sort());
            expect(s.waiters.map((w) => w.callId)).toEqual(model.queue.map((w) => w.id));
          }
          checkInvariants(s, rows, limit, maxQueue);
        }
      },
    ),
    { numRuns: 200 },
  );
});
