import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantGates } from "../../../worker/gates/address";
import type { GateAcquireInput } from "../../../worker/gates/protocol";
import { createGateLimiter } from "../../../worker/gates/limiter";
import type { SlotGrant, SlotRequest } from "../../../src/gates/limiter";
import type { GateRules } from "../../../src/gates/rules";
import { loadLimiter } from "../../limiter-load";
import { eventually, waitPast } from "../../wait";
import { alarmOf, waiterDeadline } from "../helpers/durable-state";

let seq = 0;
/** A fresh gate per test, so tests never share state. */
const freshGate = () => `t1:tool:g${++seq}-${crypto.randomUUID()}`;
const stubOf = (gate: string) => env.GATES.get(env.GATES.idFromName(gate));
const rawOf = (gate: string) => stubOf(gate) as unknown as DurableObjectStub;

/** A slot request; the gate's rules (limit, maxQueue) may be given beside the other fields. */
type ReqOptions = Partial<Omit<SlotRequest, "rules">> & Partial<GateRules>;
const req = (gate: string, callId: string, { limit = 1, maxQueue = 10, ...over }: ReqOptions = {}): SlotRequest => ({
  gate,
  callId,
  tool: "tool",
  rules: { limit, maxQueue },
  leaseMs: 60_000,
  ...over,
});

/** The Gate object's acquire input, rules likewise beside the other fields. */
type InputOptions = Partial<Omit<GateAcquireInput, "rules">> & Partial<GateRules>;
const input = (
  gate: string,
  callId: string,
  { limit = 1, maxQueue = 10, ...over }: InputOptions = {},
): GateAcquireInput => ({
  gate,
  callId,
  tool: "tool",
  rules: { limit, maxQueue },
  leaseMs: 60_000,
  askedAt: Date.now(),
  pollMs: 5_000,
  tenant: "t1",
  ...over,
});

function okGrant(g: SlotGrant): Extract<SlotGrant, { ok: true }> {
  if (!g.ok) throw new Error(`expected a grant, got ${g.code}: ${g.message}`);
  return g;
}

/** Wait until the gate's queue has `depth` waiters (acquire RPCs arrive asynchronously). */
function untilQueued(gate: string, depth: number): Promise<void> {
  return eventually(
    async () => (await stubOf(gate).snapshot()).queueDepth >= depth,
    `the queue of ${gate} reaches ${depth}`,
  );
}

describe("Gate Durable Object", () => {
  it("never runs more than the limit with 200 concurrent acquires", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"));
    const { maxRunning, outcomes } = await loadLimiter(limiter, (i) => req(gate, `c${i}`, { limit: 4, maxQueue: 150 }));
    expect(maxRunning).toBe(4);
    const ran = outcomes.filter((o) => o === "ran").length;
    // At most limit + maxQueue can be admitted at once; the rest answer busy, none fail otherwise.
    expect(ran).toBeGreaterThanOrEqual(154);
    expect(outcomes.every((o) => o === "ran" || o === "busy")).toBe(true);
    expect(await stubOf(gate).snapshot()).toMatchObject({ holders: [], queueDepth: 0 });
  });

  it("grants waiters first come, first served", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"));
    const first = okGrant(await limiter.acquire(req(gate, "a")));
    const order: string[] = [];
    const waiting: Promise<void>[] = [];
    for (const [i, id] of ["b", "c", "d", "e"].entries()) {
      waiting.push(
        limiter.acquire(req(gate, id)).then(async (g) => {
          order.push(id);
          await okGrant(g).release();
        }),
      );
      await untilQueued(gate, i + 1);
    }
    await first.release();
    await Promise.all(waiting);
    expect(order).toEqual(["b", "c", "d", "e"]);
  });

  it("answers busy with a retry-after hint when the queue is full", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"));
    const a = okGrant(await limiter.acquire(req(gate, "a", { maxQueue: 1 })));
    const b = limiter.acquire(req(gate, "b", { maxQueue: 1 }));
    await untilQueued(gate, 1);
    const busy = await limiter.acquire(req(gate, "c", { maxQueue: 1 }));
    expect(busy).toMatchObject({ ok: false, code: "busy" });
    expect(!busy.ok && busy.retryAfterMs).toBeGreaterThan(0);
    await a.release();
    await okGrant(await b).release();
  });

  it("a waiter whose caller aborts leaves the queue and never runs", async () => {
    const gate = freshGate();
    const limiter = createGateLimiter(tenantGates(env, "t1"));
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    const abort = new AbortController();
    const b = limiter.acquire(req(gate, "b", { signal: abort.signal }));
    await untilQueued(gate, 1);
    const c = limiter.acquire(req(gate, "c"));
    await untilQueued(gate, 2);
    abort.abort();
    expect(await b).toMatchObject({ ok: false, code: "cancelled" });
    expect((await stubOf(gate).snapshot()).queued.map((w) => w.callId)).toEqual(["c"]);
    await a.release();
    okGrant(await c);
    expect((await stubOf(gate).snapshot()).holders.map((h) => h.callId)).toEqual(["c"]);
  });

  it("with waitUntil, release answers at once and the handed-over RPC frees the slot", async () => {
    const gate = freshGate();
    const pending: Promise<unknown>[] = [];
    const limiter = createGateLimiter(tenantGates(env, "t1"), { waitUntil: (p) => pending.push(p) });
    const a = okGrant(await limiter.acquire(req(gate, "a")));
    await a.release();
    await a.release();
    expect(pending).toHaveLength(1);
    await Promise.all(pending);
    expect((await stubOf(gate).snapshot()).holders).toEqual([]);
  });

  it("a cancel that races the grant frees the slot", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    expect(await stub.acquire(input(gate, "a"))).toMatchObject({ ok: true });
    expect(await stub.cancel("a")).toEqual({ ok: true, was: "holder" });
    expect(await stub.acquire(input(gate, "b"))).toMatchObject({ ok: true });
  });

  it("re-acquiring with the same call id keeps one slot", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    // The same grant (validMs aside: how long the lease still runs, by the gate's clock at each answer).
    const grant = async () => ({ ...(await stub.acquire(input(gate, "a", { limit: 2 }))), validMs: undefined });
    const first = await grant();
    expect(first).toMatchObject({ ok: true });
    expect(await grant()).toEqual(first);
    expect((await stub.snapshot()).holders).toHaveLength(1);
  });

  it("a waiter that stops coming back leaves the queue at its wait deadline", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    await stub.acquire(input(gate, "a"));
    // b's poll ends at once and it never comes back: it leaves the queue 300 ms later, by the alarm.
    expect(await stub.acquire(input(gate, "b", { pollMs: 5, waitGraceMs: 300 }))).toMatchObject({
      code: "queued",
      position: 1,
    });
    const deadline = await waiterDeadline(gate, "b");
    expect(await alarmOf(rawOf(gate))).toBe(deadline);
    await waitPast(deadline!);
    await runDurableObjectAlarm(stub); // the alarm may already have run on its own: either way, once
    expect(await waiterDeadline(gate, "b")).toBeUndefined(); // read without a transition: the alarm dropped it
    expect(await stub.snapshot()).toMatchObject({ queueDepth: 0 });
    await stub.release("a");
    expect((await stub.snapshot()).holders).toEqual([]);
  });

  it("reclaims an expired lease by the alarm; a second or late alarm changes nothing", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    const a = await stub.acquire(input(gate, "a", { leaseMs: 500 }));
    if (!a.ok) throw new Error(`a got no slot: ${a.code}`);
    const b = stub.acquire(input(gate, "b"));
    await untilQueued(gate, 1);
    // The gate set its alarm for a's lease end. The alarm may then run on its own before the test
    // runs it: either way, b's open poll (5 s) is answered by the alarm's grant, since nothing else
    // touches the gate in between.
    expect(await alarmOf(rawOf(gate))).toBe(a.expiresAt);
    await waitPast(a.expiresAt);
    await runDurableObjectAlarm(stub);
    expect(await b).toMatchObject({ ok: true });
    const after = await stub.snapshot();
    expect(after.holders.map((h) => h.callId)).toEqual(["b"]);
    await runDurableObjectAlarm(stub); // b's lease is not due: a no-op
    await runDurableObjectAlarm(stub);
    expect(await stub.snapshot()).toEqual(after);
    expect(await stub.release("a")).toEqual({ ok: true, was: "absent" });
  });

  it("an evicted gate keeps its holders and queue and admits no extra call", async () => {
    const gate = freshGate();
    const stub = stubOf(gate);
    await stub.acquire(input(gate, "a", { limit: 2 }));
    await stub.acquire(input(gate, "b", { limit: 2 }));
    expect(await stub.acquire(input(gate, "c", { limit: 2, pollMs: 5 }))).toMatchObject({ code: "queued" });
    const before = await stub.snapshot();
    await evictDurableObject(stub);
    const fresh = stubOf(gate);
    expect(await fresh.snapshot()).toEqual(before);
    expect(await fresh.acquire(input(gate, "d", { limit: 2, pollMs: 5 }))).toMatchObject({
      code: "queued",
      position: 2,
    });
    await fresh.release("a");
    // c re-attaches by call id and finds the slot it was granted while it was away.
    expect(await fresh.acquire(input(gate, "c", { limit: 2 }))).toMatchObject({ ok: true });
    expect((await fresh.snapshot()).holders.map((h) => h.callId).sort()).toEqual(["b", "c"]);
  });
});
