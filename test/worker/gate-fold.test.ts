/**
 * The round trips the Worker's limiter saves. Releases folded into the next acquire
 * (worker/gates/release-outbox.ts): a finished call's slot is freed by its isolate's next acquire of
 * the gate, or alone when its fold window ends; a grant that found others waiting releases at once; a
 * fold lost with its isolate is reclaimed by the lease. The quiet wait (quietWaitMs): a call is told of
 * its wait only once the wait outlasts it, and a slot that came sooner is marked `waited`, so the
 * pipeline still asks the journal whether a cancel was accepted meanwhile.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SlotGrant, SlotRequest } from "../../src/gates/limiter";
import { tenantGates } from "../../worker/gates/address";
import { createGateLimiter } from "../../worker/gates/limiter";
import type { GateAcquireInput } from "../../worker/gates/protocol";
import { createReleaseOutbox } from "../../worker/gates/release-outbox";
import { loadLimiter } from "../limiter-load";
import { eventually, waitPast } from "../wait";

let seq = 0;
const freshGate = () => `t1:tool:fold${++seq}-${crypto.randomUUID()}`;
const stubOf = (gate: string) => env.GATES.get(env.GATES.idFromName(gate));
const req = (gate: string, callId: string, over: Partial<SlotRequest> = {}): SlotRequest => ({
  gate,
  callId,
  tool: "tool",
  rules: { limit: 1, maxQueue: 300 },
  leaseMs: 60_000,
  ...over,
});
const input = (gate: string, callId: string, over: Partial<GateAcquireInput> = {}): GateAcquireInput => ({
  gate,
  callId,
  tool: "tool",
  rules: { limit: 2, maxQueue: 10 },
  leaseMs: 60_000,
  askedAt: Date.now(),
  pollMs: 5,
  tenant: "t1",
  ...over,
});

/** A request's limiter that folds its releases (its waitUntil promises collected in `pending`). */
function folding(foldMs: number, outbox = createReleaseOutbox()) {
  const pending: Promise<unknown>[] = [];
  const limiter = createGateLimiter(tenantGates(env, "t1"), { waitUntil: (p) => pending.push(p), outbox, foldMs });
  return { limiter, outbox, settled: () => Promise.all(pending) };
}
/** Another isolate's limiter: releases go at once. */
const plain = () => createGateLimiter(tenantGates(env, "t1"));

function okGrant(g: SlotGrant): Extract<SlotGrant, { ok: true }> {
  if (!g.ok) throw new Error(`expected a grant, got ${g.code}: ${g.message}`);
  return g;
}
const holders = async (gate: string) => (await stubOf(gate).snapshot()).holders.map((h) => h.callId).sort();
const untilQueued = (gate: string, depth: number) =>
  eventually(async () => (await stubOf(gate).snapshot()).queueDepth >= depth, `the queue of ${gate} reaches ${depth}`);

describe("releases folded into the next acquire", () => {
  it("the next acquire of the gate carries the release: the finished slot is freed with no round trip of its own", async () => {
    const gate = freshGate();
    const { limiter, settled } = folding(1_000);
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    await a.release();
    expect(await holders(gate)).toEqual(["a"]); // deferred: nobody waited when a was granted
    okGrant(await limiter.acquire(req(gate, "b")));
    expect(await holders(gate)).toEqual(["b"]);
    await settled(); // a's window ends: nothing of a's is left to send
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("a release no acquire carries goes alone when its window ends, and a waiter from elsewhere gets the slot", async () => {
    const gate = freshGate();
    const { limiter, settled } = folding(50);
    okGrant(await limiter.acquire(req(gate, "a"))).release();
    const b = plain().acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    await settled();
    okGrant(await b);
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("each release keeps its own window: an earlier one's end does not send a later one", async () => {
    const gate = freshGate();
    const outbox = createReleaseOutbox();
    const early = folding(20, outbox);
    const late = folding(600_000, outbox);
    const two = { rules: { limit: 2, maxQueue: 10 } };
    await okGrant(await early.limiter.acquire(req(gate, "a", two))).release();
    await okGrant(await late.limiter.acquire(req(gate, "b", two))).release();
    await early.settled();
    expect(await holders(gate)).toEqual(["b"]);
    expect(outbox.take(gate)).toEqual(["b"]); // still waiting for an acquire to carry it
  });

  it("a release goes at once while an acquire of its gate from the same isolate is under way (it may be waiting for it)", async () => {
    const gate = freshGate();
    const { limiter, outbox, settled } = folding(600_000);
    const a = okGrant(await limiter.acquire(req(gate, "a"))); // nobody waited at its grant
    const b = limiter.acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    await a.release();
    okGrant(await b);
    expect(outbox.take(gate)).toEqual([]);
    await settled();
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("a grant that found others waiting releases at once", async () => {
    const gate = freshGate();
    const other = plain();
    const { limiter, settled } = folding(600_000); // a deferred release would never go within the test
    const a = okGrant(await other.acquire(req(gate, "a")));
    const b = limiter.acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    const c = other.acquire(req(gate, "c"));
    await untilQueued(gate, 2);
    await a.release();
    await okGrant(await b).release(); // c was waiting when b got its slot
    okGrant(await c);
    await settled();
    expect(await holders(gate)).toEqual(["c"]);
  });

  it("a folded release frees its slot for the waiters ahead, never for the acquire that carries it (first come, first served)", async () => {
    const gate = freshGate();
    const other = plain();
    const { limiter, outbox } = folding(600_000);
    await okGrant(await limiter.acquire(req(gate, "a"))).release(); // deferred
    const order: string[] = [];
    const waiting = ["b", "c"].map((id) => other.acquire(req(gate, id)).then(async (g) => {
      order.push(id);
      await okGrant(g).release();
    }));
    await untilQueued(gate, 2);
    const d = limiter.acquire(req(gate, "d")).then((g) => {
      order.push("d");
      return okGrant(g);
    });
    await Promise.all(waiting);
    await d;
    expect(order).toEqual(["b", "c", "d"]);
    expect(outbox.take(gate)).toEqual([]); // a's release went with d's acquire
  });

  it("a folded release lost with its isolate is reclaimed by the slot's lease", async () => {
    const gate = freshGate();
    const { limiter, outbox, settled } = folding(50);
    await okGrant(await limiter.acquire(req(gate, "a", { leaseMs: 500 }))).release();
    // The isolate dies holding the release: nothing will send it.
    expect(outbox.take(gate)).toEqual(["a"]);
    await settled();
    const b = plain().acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    const [held] = (await stubOf(gate).snapshot()).holders;
    expect(held?.callId).toBe("a");
    await waitPast(held!.expiresAt);
    await runDurableObjectAlarm(stubOf(gate)); // or the alarm ran on its own: either way a's lease ended
    okGrant(await b);
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("the releases and the acquire are one transaction: an evicted gate reloads both", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    await stub.acquire(input(gate, "a"));
    await stub.acquire(input(gate, "b"));
    expect(await stub.acquire(input(gate, "c", { releases: ["a", "nobody"] }))).toMatchObject({ ok: true, queueDepth: 0 });
    await evictDurableObject(stub);
    expect(await holders(gate)).toEqual(["b", "c"]);
    expect(await stubOf(gate).acquire(input(gate, "d"))).toMatchObject({ ok: false, code: "queued", position: 1 });
  });

  it("never runs more than the limit with 200 concurrent acquires, and frees every slot", async () => {
    const gate = freshGate();
    const { limiter, settled } = folding(50);
    const { maxRunning, outcomes } = await loadLimiter(limiter, (i) => req(gate, `c${i}`, { rules: { limit: 4, maxQueue: 250 } }));
    expect(maxRunning).toBeLessThanOrEqual(4);
    expect(outcomes.every((o) => o === "ran")).toBe(true);
    await settled();
    expect(await stubOf(gate).snapshot()).toMatchObject({ holders: [], queueDepth: 0 });
  });
});

describe("the quiet wait", () => {
  it("a wait shorter than the quiet time is not announced, and its grant says it waited", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"), { quietWaitMs: 60_000 });
    const first = await limiter.acquire(req(gate, "a"));
    expect(first).toMatchObject({ ok: true });
    expect(first.ok && first.waited).toBeFalsy(); // granted at once
    let told = 0;
    const second = limiter.acquire(req(gate, "b", { onQueued: () => told++ }));
    await untilQueued(gate, 1);
    if (first.ok) await first.release();
    expect(await second).toMatchObject({ ok: true, waited: true });
    expect(told).toBe(0);
  });

  it("a wait that outlasts the quiet time is announced once, and the call keeps its place", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"), { quietWaitMs: 20 });
    const first = await limiter.acquire(req(gate, "a"));
    let told = 0;
    const second = limiter.acquire(req(gate, "b", { onQueued: () => told++ }));
    await eventually(() => told === 1, "the wait is announced");
    expect((await stubOf(gate).snapshot()).queued.map((w) => w.callId)).toEqual(["b"]);
    if (first.ok) await first.release();
    expect(await second).toMatchObject({ ok: true, waited: true });
    expect(told).toBe(1);
  });
});
