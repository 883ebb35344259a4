import { afterEach, describe, expect, it, vi } from "vitest";
import { createLocalLimiter } from "../../../src/gates/local-limiter";
import type { SlotGrant, SlotRequest } from "../../../src/gates/limiter";
import type { GateRules } from "../../../src/gates/rules";
import { loadLimiter } from "../../limiter-load";

/** A slot request; the gate's rules (limit, maxQueue, maxWaitMs) may be given beside the other fields. */
type ReqOptions = Partial<Omit<SlotRequest, "rules">> & Partial<GateRules>;
const req = (callId: string, { limit = 1, maxQueue = 10, maxWaitMs, ...over }: ReqOptions = {}): SlotRequest => ({
  gate: "tenant:tool",
  rules: { limit, maxQueue, ...(maxWaitMs === undefined ? {} : { maxWaitMs }) },
  callId,
  tool: "tool",
  leaseMs: 60_000,
  ...over,
});

function okGrant(g: SlotGrant): Extract<SlotGrant, { ok: true }> {
  if (!g.ok) throw new Error(`expected a grant, got ${g.code}`);
  return g;
}

describe("local limiter", () => {
  afterEach(() => vi.useRealTimers());

  it("never runs more than the limit with 200 concurrent acquires", async () => {
    const limiter = createLocalLimiter();
    const { maxRunning, outcomes } = await loadLimiter(limiter, (i) => req(`c${i}`, { limit: 3, maxQueue: 500 }));
    expect(outcomes.every((o) => o === "ran")).toBe(true);
    expect(maxRunning).toBe(3);
    expect(limiter.inspect("tenant:tool")).toBeUndefined();
  });

  it("grants waiters first come, first served", async () => {
    const limiter = createLocalLimiter();
    const first = okGrant(await limiter.acquire(req("a")));
    const order: string[] = [];
    const waiting = ["b", "c", "d"].map((id) =>
      limiter.acquire(req(id)).then(async (g) => {
        order.push(id);
        await okGrant(g).release();
      }),
    );
    await first.release();
    await Promise.all(waiting);
    expect(order).toEqual(["b", "c", "d"]);
  });

  it("answers busy with a retry-after hint when the queue is full", async () => {
    const limiter = createLocalLimiter();
    okGrant(await limiter.acquire(req("a", { maxQueue: 1 })));
    void limiter.acquire(req("b", { maxQueue: 1 }));
    const busy = await limiter.acquire(req("c", { maxQueue: 1 }));
    expect(busy).toMatchObject({ ok: false, code: "busy" });
    expect(!busy.ok && busy.retryAfterMs).toBeGreaterThan(0);
  });

  it("a waiter whose signal aborts leaves the queue and never runs", async () => {
    const limiter = createLocalLimiter();
    const a = okGrant(await limiter.acquire(req("a")));
    const abort = new AbortController();
    const b = limiter.acquire(req("b", { signal: abort.signal }));
    const c = limiter.acquire(req("c"));
    expect(limiter.inspect("tenant:tool")?.queued).toEqual(["b", "c"]);
    abort.abort();
    expect(await b).toMatchObject({ ok: false, code: "cancelled" });
    expect(limiter.inspect("tenant:tool")?.queued).toEqual(["c"]);
    await a.release();
    okGrant(await c);
    expect(limiter.inspect("tenant:tool")?.holders).toEqual(["c"]);
    const pre = new AbortController();
    pre.abort();
    expect(await limiter.acquire(req("x", { signal: pre.signal }))).toMatchObject({ code: "cancelled" });
  });

  it("a second release of the same grant frees nothing more", async () => {
    const limiter = createLocalLimiter();
    const a = okGrant(await limiter.acquire(req("a", { limit: 2 })));
    okGrant(await limiter.acquire(req("b", { limit: 2 })));
    await a.release();
    const c = limiter.acquire(req("c", { limit: 2 }));
    okGrant(await c);
    let answered = false;
    void limiter.acquire(req("d", { limit: 2 })).then(() => (answered = true));
    await a.release();
    // The limiter's state is the whole truth (it changes synchronously): d still waits, nobody answered it.
    expect(limiter.inspect("tenant:tool")?.queued).toEqual(["d"]);
    expect(limiter.inspect("tenant:tool")?.holders).toEqual(["b", "c"]);
    expect(answered).toBe(false);
  });

  it("reclaims a slot whose holder never releases when the lease ends", async () => {
    vi.useFakeTimers();
    const limiter = createLocalLimiter();
    okGrant(await limiter.acquire(req("a", { leaseMs: 100 })));
    const b = limiter.acquire(req("b", { leaseMs: 100 }));
    await vi.advanceTimersByTimeAsync(99);
    expect(limiter.inspect("tenant:tool")?.holders).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(1);
    okGrant(await b);
    expect(limiter.inspect("tenant:tool")?.holders).toEqual(["b"]);
  });

  it("a waiter still queued after maxWaitMs leaves as busy with a retry-after hint", async () => {
    vi.useFakeTimers();
    const limiter = createLocalLimiter();
    okGrant(await limiter.acquire(req("a")));
    let queued = 0;
    const b = limiter.acquire(req("b", { maxWaitMs: 200, onQueued: () => queued++ }));
    expect(queued).toBe(1);
    await vi.advanceTimersByTimeAsync(199);
    expect(limiter.inspect("tenant:tool")?.queued).toEqual(["b"]);
    await vi.advanceTimersByTimeAsync(1);
    const answer = await b;
    expect(answer).toMatchObject({ ok: false, code: "busy" });
    expect(!answer.ok && answer.retryAfterMs).toBeGreaterThan(0);
    expect(limiter.inspect("tenant:tool")?.queued).toEqual([]);
  });

  it("tells onQueued only when the call really waits", async () => {
    const limiter = createLocalLimiter();
    let queued = 0;
    const a = okGrant(await limiter.acquire(req("a", { onQueued: () => queued++ })));
    expect(queued).toBe(0);
    const b = limiter.acquire(req("b", { onQueued: () => queued++ }));
    expect(queued).toBe(1);
    await a.release();
    okGrant(await b);
  });

  it("keeps gates with different keys apart", async () => {
    const limiter = createLocalLimiter();
    okGrant(await limiter.acquire(req("a", { gate: "t:one" })));
    const b = limiter.acquire(req("b", { gate: "t:two" }));
    expect(limiter.inspect("t:two")?.holders).toEqual(["b"]); // granted at once, not queued behind a
    okGrant(await b);
  });
});
