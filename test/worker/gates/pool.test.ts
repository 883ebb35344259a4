/**
 * The round trips the Worker's limiter saves, and what it keeps while saving them. Slots an isolate
 * keeps (worker/gates/slot-pool.ts): a finished call's slot passes to the isolate's next call of the
 * gate from memory while nobody waits at the gate; a slot nobody takes goes back when its linger
 * ends; the isolate learns at its next keep that others wait and then gives its slots back; a slot
 * lost with its isolate comes back when its lease ends. Two pools stand for two isolates. The quiet
 * wait (quietWaitMs): a call is told of its wait only once the wait outlasts it, and a slot that came
 * sooner is marked `waited`, so the pipeline still asks the journal whether a cancel was accepted.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Limiter, SlotGrant, SlotRequest } from "../../../src/gates/limiter";
import { tenantGates, type GatesAddress, type GateStub } from "../../../worker/gates/address";
import { createGateLimiter } from "../../../worker/gates/limiter";
import type { GateAcquireInput } from "../../../worker/gates/protocol";
import { createSlotPools, type SlotPools } from "../../../src/gates/slot-pool";
import { loadLimiter } from "../../limiter-load";
import { eventually, waitPast } from "../../wait";

let seq = 0;
const freshGate = () => `t1:tool:pool${++seq}-${crypto.randomUUID()}`;
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

/** The RPCs a limiter sends its gates, by method. */
type Sent = Record<"acquire" | "keep" | "release" | "releaseAll" | "cancel", number>;

/** tenantGates, counting the RPCs sent through it. */
function counted(): { gates: GatesAddress; sent: Sent } {
  const sent: Sent = { acquire: 0, keep: 0, release: 0, releaseAll: 0, cancel: 0 };
  const real = tenantGates(env, "t1");
  const gates: GatesAddress = {
    tenant: real.tenant,
    index: () => real.index(),
    for(gate) {
      const stub = real.for(gate);
      return new Proxy(stub, {
        get(target, name) {
          const value = Reflect.get(target, name) as unknown;
          if (typeof name !== "string" || !(name in sent)) return value;
          return (...args: unknown[]) => {
            sent[name as keyof Sent]++;
            return (value as (...a: unknown[]) => unknown)(...args);
          };
        },
      }) as GateStub;
    },
  };
  return { gates, sent };
}

/** One isolate's limiter for one request: its kept slots (`pools`), its waitUntil promises in `settled`. */
function isolate(options: { lingerMs?: number; localWaitMs?: number; pools?: SlotPools } = {}) {
  const pending: Promise<unknown>[] = [];
  const { pools = createSlotPools(), ...rest } = options;
  const { gates, sent } = counted();
  const limiter = createGateLimiter(gates, { waitUntil: (p) => pending.push(p), pools, ...rest });
  /** Every waitUntil promise so far has settled (and those they led to). */
  const settled = async () => {
    for (let done = 0; done < pending.length; done = pending.length) await Promise.all(pending.slice(done));
  };
  return { limiter, pools, sent, settled };
}
/** Another isolate's limiter that keeps nothing: releases go at once. */
const plain = () => createGateLimiter(tenantGates(env, "t1"));

function okGrant(g: SlotGrant): Extract<SlotGrant, { ok: true }> {
  if (!g.ok) throw new Error(`expected a grant, got ${g.code}: ${g.message}`);
  return g;
}
const holders = async (gate: string) => (await stubOf(gate).snapshot()).holders.map((h) => h.callId).sort();
const untilQueued = (gate: string, depth: number) =>
  eventually(async () => (await stubOf(gate).snapshot()).queueDepth >= depth, `the queue of ${gate} reaches ${depth}`);

/** Counts calls running at once across every limiter that runs through it. */
function runningCounter() {
  let running = 0;
  let max = 0;
  return {
    get max() {
      return max;
    },
    /** Acquire, run a few ms, release: "ran" or the code it was refused with. */
    async run(limiter: Limiter, request: SlotRequest, ms = 1): Promise<string> {
      const grant = await limiter.acquire(request);
      if (!grant.ok) return grant.code;
      max = Math.max(max, ++running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      await grant.release();
      return "ran";
    },
  };
}

describe("slots an isolate keeps", () => {
  it("a finished call's slot passes to the isolate's next call from memory, and goes back when its linger ends", async () => {
    const gate = freshGate();
    const { limiter, sent, settled } = isolate({ lingerMs: 50 });
    await okGrant(await limiter.acquire(req(gate, "a"))).release();
    const b = okGrant(await limiter.acquire(req(gate, "b")));
    expect(sent.acquire).toBe(1); // b took a's slot without asking the gate
    expect(b.waited).toBeFalsy();
    expect(await holders(gate)).toEqual(["a"]); // the gate holds the slot under the call it first granted it to
    await b.release();
    await settled();
    expect(await holders(gate)).toEqual([]);
    expect(sent.release + sent.releaseAll).toBe(1);
  });

  it("calls back to back in one isolate: never over the limit, every call runs, and most never ask the gate", async () => {
    const gate = freshGate();
    // Windows far above any pause a loaded machine makes between one call's release and the next's
    // acquire: what is tested is where calls wait, not how fast the machine is (the defaults, 100 ms
    // and 250 ms, sent calls to the gate under load).
    const { limiter, sent, settled } = isolate({ lingerMs: 1_000, localWaitMs: 5_000 });
    const counter = runningCounter();
    const rules = { limit: 4, maxQueue: 300 };
    // 8 callers, 25 calls each, every next call as soon as the last one ends (the bench's load).
    const outcomes = (
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          const out: string[] = [];
          for (let i = 0; i < 25; i++) out.push(await counter.run(limiter, req(gate, `w${w}-${i}`, { rules }), i % 3));
          return out;
        }),
      )
    ).flat();
    expect(outcomes.filter((o) => o === "ran")).toHaveLength(200);
    expect(counter.max).toBeLessThanOrEqual(4);
    // The first wave goes to the gate; then calls wait among the isolate's and take its slots.
    expect(sent.acquire).toBeLessThan(50);
    await settled();
    expect(await stubOf(gate).snapshot()).toMatchObject({ holders: [], queueDepth: 0 });
  });

  it("two isolates calling back to back: never over the limit, and both are served to the end", async () => {
    const gate = freshGate();
    const counter = runningCounter();
    const rules = { limit: 2, maxQueue: 300 };
    const one = isolate({ lingerMs: 20 });
    const two = isolate({ lingerMs: 20 });
    const stream = (limiter: Limiter, name: string) =>
      Promise.all(
        Array.from({ length: 3 }, async (_, w) => {
          const out: string[] = [];
          for (let i = 0; i < 15; i++)
            out.push(await counter.run(limiter, req(gate, `${name}${w}-${i}`, { rules }), 1 + (i % 3)));
          return out;
        }),
      );
    const [a, b] = await Promise.all([stream(one.limiter, "a"), stream(two.limiter, "b")]);
    expect([...a.flat(), ...b.flat()].every((o) => o === "ran")).toBe(true);
    expect(counter.max).toBeLessThanOrEqual(2);
    await Promise.all([one.settled(), two.settled()]);
    expect(await stubOf(gate).snapshot()).toMatchObject({ holders: [], queueDepth: 0 });
  });

  it("a call of another isolate waiting at the gate is served while the isolate holding every slot keeps calling", async () => {
    const gate = freshGate();
    const counter = runningCounter();
    const rules = { limit: 2, maxQueue: 300 };
    const keeper = isolate({ pools: createSlotPools(100) });
    let served = false;
    let calls = 0;
    // Four callers keep the keeping isolate's two slots busy until the other isolate's call is served.
    const loops = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !served; i++) {
        expect(await counter.run(keeper.limiter, req(gate, `k${w}-${i}`, { rules }), 2)).toBe("ran");
        calls++;
      }
    });
    await eventually(
      () => calls >= 20 && keeper.pools.of(gate).slots.size === 2,
      "the keeping isolate holds every slot and runs calls back to back",
    );
    const askedAt = Date.now();
    const grant = okGrant(await plain().acquire(req(gate, "other", { rules })));
    served = true;
    // Heard of at the keeping isolate's next keep (keepMs 100), then served as a slot frees: far
    // sooner than this bound, which only tells a served call from one the isolate starved until
    // some other mechanism (a poll's end, a lease) let it in.
    expect(Date.now() - askedAt).toBeLessThan(5_000);
    await grant.release();
    await Promise.all(loops);
    expect(counter.max).toBeLessThanOrEqual(2);
  });

  it("a kept slot whose lease cannot cover a call's goes back with that call's acquire (the call never waits for it)", async () => {
    const gate = freshGate();
    const { limiter, sent, settled } = isolate();
    await okGrant(await limiter.acquire(req(gate, "short", { leaseMs: 1_000 }))).release();
    // A tool of the same group with a longer lease: the idle slot's lease ends too soon for it.
    const long = okGrant(await limiter.acquire(req(gate, "long", { leaseMs: 60_000 })));
    expect(sent.acquire).toBe(2);
    expect(await holders(gate)).toEqual(["long"]);
    await long.release();
    await settled();
  });

  it("a slot kept idle goes back when its linger ends, and a call waiting in another isolate gets it", async () => {
    const gate = freshGate();
    const { limiter, settled } = isolate({ lingerMs: 50 });
    await okGrant(await limiter.acquire(req(gate, "a"))).release();
    const b = plain().acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    await settled();
    okGrant(await b);
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("a grant that found others waiting gives its slot back at once", async () => {
    const gate = freshGate();
    const other = plain();
    const { limiter, settled } = isolate({ lingerMs: 600_000 }); // an idle slot would stay for the whole test
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

  it("an isolate that dies keeping a slot: it comes back when its lease ends", async () => {
    const gate = freshGate();
    const { limiter, pools } = isolate({ lingerMs: 600_000 });
    await okGrant(await limiter.acquire(req(gate, "a", { leaseMs: 500 }))).release();
    expect(pools.of(gate).slots.size).toBe(1); // kept, idle: nothing of this isolate will send it back
    const b = plain().acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    const [held] = (await stubOf(gate).snapshot()).holders;
    expect(held?.callId).toBe("a");
    await waitPast(held!.expiresAt);
    await runDurableObjectAlarm(stubOf(gate)); // or the alarm ran on its own: either way a's lease ended
    okGrant(await b);
    expect(await holders(gate)).toEqual(["b"]);
  });

  it("a call waiting among its isolate's calls leaves when its caller aborts, and never runs", async () => {
    const gate = freshGate();
    const { limiter, pools, sent } = isolate({ localWaitMs: 60_000 });
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    const abort = new AbortController();
    const b = limiter.acquire(req(gate, "b", { signal: abort.signal }));
    const c = limiter.acquire(req(gate, "c"));
    await eventually(() => pools.of(gate).waiting === 2, "b and c wait in the isolate");
    abort.abort();
    expect(await b).toMatchObject({ ok: false, code: "cancelled" });
    await a.release();
    expect(await c).toMatchObject({ ok: true, waited: true });
    expect(sent.acquire).toBe(1); // neither waiter went to the gate
    expect(await stubOf(gate).snapshot()).toMatchObject({ queueDepth: 0, holders: [{ callId: "a" }] });
  });

  it("a call waiting in its isolate answers busy at its longest wait; with maxWaitMs 0 it never waits", async () => {
    const gate = freshGate();
    const { limiter, pools } = isolate({ localWaitMs: 60_000 });
    const rules = { limit: 1, maxQueue: 10 };
    const a = okGrant(await limiter.acquire(req(gate, "a", { rules })));
    const waiting = limiter.acquire(req(gate, "b", { rules: { ...rules, maxWaitMs: 50 } }));
    await eventually(() => pools.of(gate).waiting === 1, "b waits in the isolate");
    expect(await waiting).toMatchObject({
      ok: false,
      code: "busy",
      message: "waited the longest time its policy allows",
    });
    expect(await limiter.acquire(req(gate, "c", { rules: { ...rules, maxWaitMs: 0 } }))).toMatchObject({
      ok: false,
      code: "busy",
    });
    expect(pools.of(gate).waiting).toBe(0);
    await a.release();
  });

  it("a call that waits in its isolate longer than localWaitMs waits at the gate, where GET /v1/gates lists it", async () => {
    const gate = freshGate();
    const { limiter, pools, sent } = isolate({ localWaitMs: 20 });
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    const b = limiter.acquire(req(gate, "b"));
    await untilQueued(gate, 1);
    expect((await stubOf(gate).snapshot()).queued.map((w) => w.callId)).toEqual(["b"]);
    expect(pools.of(gate).waiting).toBe(0);
    await a.release(); // b waits at the gate (it came first): the slot goes back, to it
    expect(await b).toMatchObject({ ok: true, waited: true });
    expect(sent.acquire).toBe(2);
  });

  it("a call that goes to the gate while earlier calls wait in its isolate goes behind them", async () => {
    const gate = freshGate();
    const { limiter, pools } = isolate({ localWaitMs: 60_000, pools: createSlotPools(50) });
    const pool = pools.of(gate);
    const started: string[] = [];
    const run = async (id: string) => {
      const grant = okGrant(await limiter.acquire(req(gate, id)));
      started.push(id);
      await grant.release();
    };
    const h = okGrant(await limiter.acquire(req(gate, "h")));
    // The gate has just said nobody else waits (as a keep's answer does): b and c wait in the isolate.
    pool.kept([], [], 0, Date.now());
    const early = [run("b"), run("c")];
    expect(pool.waiting).toBe(2);
    // 50 ms (keepMs) after that answer the isolate no longer passes its slots on: d goes to the gate.
    await eventually(() => !pool.mayWait(Date.now()), "the isolate no longer passes its slots on");
    const late = run("d");
    await untilQueued(gate, 1);
    await h.release();
    await Promise.all([...early, late]);
    expect(started).toEqual(["b", "c", "d"]);
  });

  it("calls its isolate sends to the gate together reach it, and start, in the order they came", async () => {
    const gate = freshGate();
    const { limiter, pools } = isolate({ localWaitMs: 60_000, pools: createSlotPools(50) });
    const pool = pools.of(gate);
    const started: string[] = [];
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const h = okGrant(await limiter.acquire(req(gate, "h")));
    // The gate has just said nobody else waits (as a keep's answer does): the calls wait in the isolate.
    pool.kept([], [], 0, Date.now());
    const runs = ids.map(async (id) => {
      const grant = okGrant(await limiter.acquire(req(gate, id)));
      started.push(id);
      await grant.release();
    });
    expect(pool.waiting).toBe(ids.length);
    await eventually(() => !pool.mayWait(Date.now()), "the isolate no longer passes its slots on");
    // h's slot goes back to the gate, and every call waiting in the isolate goes there too, at once.
    await h.release();
    await Promise.all(runs);
    expect(started).toEqual(ids);
  });

  it("calls waiting in the isolate count toward maxQueue", async () => {
    const gate = freshGate();
    const { limiter, pools } = isolate({ localWaitMs: 60_000 });
    const rules = { limit: 1, maxQueue: 1 };
    const a = okGrant(await limiter.acquire(req(gate, "a", { rules })));
    const b = limiter.acquire(req(gate, "b", { rules }));
    await eventually(() => pools.of(gate).waiting === 1, "b waits in the isolate");
    const busy = await limiter.acquire(req(gate, "c", { rules }));
    expect(busy).toMatchObject({ ok: false, code: "busy" });
    expect(!busy.ok && busy.retryAfterMs).toBeGreaterThan(0);
    await a.release();
    okGrant(await b);
  });

  it("a call waiting in the isolate is told it waits once it has waited the quiet time", async () => {
    const gate = freshGate();
    const pending: Promise<unknown>[] = [];
    const pools = createSlotPools();
    const limiter = createGateLimiter(tenantGates(env, "t1"), {
      waitUntil: (p) => pending.push(p),
      pools,
      quietWaitMs: 20,
    });
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    let told = 0;
    const b = limiter.acquire(req(gate, "b", { onQueued: () => told++ }));
    await eventually(() => told === 1, "the wait is announced");
    await a.release();
    expect(await b).toMatchObject({ ok: true, waited: true });
    expect(told).toBe(1);
  });

  it("never runs more than the limit with 200 concurrent acquires, and gives every slot back", async () => {
    const gate = freshGate();
    const { limiter, settled } = isolate({ lingerMs: 50 });
    const { maxRunning, outcomes } = await loadLimiter(limiter, (i) =>
      req(gate, `c${i}`, { rules: { limit: 4, maxQueue: 250 } }),
    );
    expect(maxRunning).toBeLessThanOrEqual(4);
    expect(outcomes.every((o) => o === "ran")).toBe(true);
    await settled();
    expect(await stubOf(gate).snapshot()).toMatchObject({ holders: [], queueDepth: 0 });
  });
});

describe("the gate's side of a kept slot", () => {
  it("keep extends the leases while nobody waits, survives an eviction, and stops extending once someone waits", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    const first = await stub.acquire(input(gate, "a", { leaseMs: 1_000 }));
    expect(first).toMatchObject({ ok: true, queueDepth: 0 });
    const kept = await stub.keep({ slots: ["a", "nobody"], leaseMs: 60_000 });
    expect(kept.queueDepth).toBe(0);
    expect(kept.held.map((h) => h.callId)).toEqual(["a"]);
    expect(kept.held[0]!.validMs).toBeGreaterThan(50_000);
    const extended = (await stub.snapshot()).holders[0]!.expiresAt;
    await evictDurableObject(stub);
    expect((await stubOf(gate).snapshot()).holders).toMatchObject([{ callId: "a", expiresAt: extended }]);
    await stubOf(gate).acquire(input(gate, "b"));
    expect(await stubOf(gate).acquire(input(gate, "c"))).toMatchObject({ ok: false, code: "queued" });
    const contended = await stubOf(gate).keep({ slots: ["a"], leaseMs: 600_000 });
    expect(contended.queueDepth).toBe(1);
    expect((await stubOf(gate).snapshot()).holders.find((h) => h.callId === "a")!.expiresAt).toBe(extended);
  });

  it("an isolate's own waiting calls do not stop its keep; another isolate's do, and its grants say so", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    const one = { rules: { limit: 1, maxQueue: 10 } };
    expect(await stub.acquire(input(gate, "a", { ...one, isolate: "one" }))).toMatchObject({
      ok: true,
      othersWaiting: 0,
    });
    expect(await stub.acquire(input(gate, "b", { ...one, isolate: "one" }))).toMatchObject({
      ok: false,
      code: "queued",
    });
    const own = await stub.keep({ slots: ["a"], leaseMs: 600_000, isolate: "one" });
    expect(own).toMatchObject({ queueDepth: 1, othersWaiting: 0 });
    expect(own.held[0]!.validMs).toBeGreaterThan(500_000);
    const other = await stub.keep({ slots: ["a"], leaseMs: 900_000, isolate: "two" });
    expect(other).toMatchObject({ queueDepth: 1, othersWaiting: 1 });
    expect(other.held[0]!.validMs).toBeLessThanOrEqual(600_000);
    // b's grant (to isolate one) counts c, waiting from elsewhere.
    const waiting = stub.acquire(input(gate, "b", { ...one, isolate: "one", pollMs: 5_000 }));
    expect(await stub.acquire(input(gate, "c", { ...one, isolate: "two" }))).toMatchObject({
      ok: false,
      code: "queued",
    });
    await stub.release("a");
    expect(await waiting).toMatchObject({ ok: true, waited: true, queueDepth: 1, othersWaiting: 1 });
  });

  it("a keep's releases go first, to the waiters: one transaction an evicted gate reloads", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    await stub.acquire(input(gate, "a"));
    await stub.acquire(input(gate, "b"));
    expect(await stub.acquire(input(gate, "c"))).toMatchObject({ ok: false, code: "queued" });
    expect(await stub.keep({ slots: ["b"], leaseMs: 120_000, releases: ["a"] })).toMatchObject({ queueDepth: 0 });
    await evictDurableObject(stub);
    expect(await holders(gate)).toEqual(["b", "c"]);
  });

  it("an acquire's releases go first and are one transaction with it: an evicted gate reloads both", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    await stub.acquire(input(gate, "a"));
    await stub.acquire(input(gate, "b"));
    expect(await stub.acquire(input(gate, "c", { releases: ["a", "nobody"] }))).toMatchObject({
      ok: true,
      queueDepth: 0,
    });
    await evictDurableObject(stub);
    expect(await holders(gate)).toEqual(["b", "c"]);
    expect(await stubOf(gate).acquire(input(gate, "d"))).toMatchObject({ ok: false, code: "queued", position: 1 });
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
