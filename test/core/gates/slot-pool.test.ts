import { describe, expect, it } from "vitest";
import {
  GatePool,
  LINE_PATIENCE_MS,
  localWaitLeft,
  type Admission,
  type LocalWait,
  type PoolCall,
} from "../../../src/gates/slot-pool";
import type { GateRules } from "../../../src/gates/rules";
import { retryAfterMs } from "../../../src/gates/waits";

/**
 * The decisions of the slots an isolate keeps (src/gates/slot-pool.ts), without a gate: the answers
 * the gate would give are fed in (add, kept), and the time is told. KEEP 100 ms: the isolate passes
 * its slots on until 100 ms after the gate last said nobody else waits.
 */

const KEEP = 100;
const call = (rules: Partial<GateRules> = {}, leaseMs = 1_000): PoolCall => ({
  rules: { limit: 1, maxQueue: 10, ...rules },
  leaseMs,
});

/** A pool holding one busy slot "a", granted at `now` with nobody else waiting (so passing until now + KEEP). */
function holding(now = 0, clock = () => now) {
  const pool = new GatePool(KEEP, "me", clock);
  const first = pool.admit(call(), now);
  if (!("turn" in first)) throw new Error("a call of an isolate holding nothing asks the gate");
  first.turn.asked();
  const { slot, giveBack } = pool.add("a", 60_000, 0, now);
  first.turn.done();
  expect(giveBack).toEqual([]);
  return { pool, slot };
}

function waitOf(admission: Admission): LocalWait {
  if (!("wait" in admission)) throw new Error(`expected a wait here, got ${Object.keys(admission).join()}`);
  return admission.wait;
}

const slotOf = (wait: LocalWait) => {
  const outcome = wait.outcome();
  return outcome && "slot" in outcome ? outcome.slot : undefined;
};
const turnOf = (wait: LocalWait) => {
  const outcome = wait.outcome();
  return outcome && "turn" in outcome ? outcome.turn : undefined;
};

describe("a call of the isolate", () => {
  it("asks the gate while the isolate holds no slot", () => {
    const pool = new GatePool(KEEP, "me");
    expect(pool.admit(call(), 0)).toHaveProperty("turn");
  });

  it("waits in the isolate while it holds every slot busy and passes them on; the oldest waiter gets the freed slot", () => {
    const { pool, slot } = holding();
    const first = waitOf(pool.admit(call(), 10));
    const second = waitOf(pool.admit(call(), 11));
    expect(pool.waiting).toBe(2);
    expect(pool.free(slot, 20, 20)).toBe("passed");
    expect(slotOf(first)).toBe(slot);
    expect(second.outcome()).toBeUndefined();
  });

  it("takes an idle kept slot while nobody waits and the isolate passes them on; past that, asks the gate", () => {
    const { pool, slot } = holding();
    expect(pool.free(slot, 10, 10)).toBe("idle");
    expect(pool.admit(call(), 20)).toEqual({ slot });
    expect(pool.free(slot, 30, 10)).toBe("idle");
    // KEEP after the gate's last answer: the idle slot goes back with this call's acquire.
    expect(pool.admit(call(), KEEP + 1)).toHaveProperty("turn");
    expect(pool.takeIdle()).toEqual(["a"]);
  });

  it("takes no kept slot whose lease would not cover its own", () => {
    const { pool, slot } = holding();
    pool.free(slot, 10, 10);
    expect(pool.admit(call({}, 120_000), 20)).toHaveProperty("turn");
  });

  it("with maxWaitMs 0 never waits in the isolate: it asks the gate", () => {
    const { pool } = holding();
    expect(pool.admit(call({ maxWaitMs: 0 }), 10)).toHaveProperty("turn");
    expect(pool.waiting).toBe(0);
  });

  it("answers busy once the calls waiting in the isolate fill the queue, with the gate's message and hint", () => {
    const { pool } = holding();
    waitOf(pool.admit(call({ maxQueue: 2 }), 10));
    waitOf(pool.admit(call({ maxQueue: 2 }), 11));
    expect(pool.admit(call({ maxQueue: 2 }), 12)).toEqual({
      busy: { message: "1 running, 2 waiting", retryAfterMs: retryAfterMs(2, 1, pool.avgHoldMs) },
    });
  });
});

describe("one order for the isolate's calls", () => {
  it("a call that cannot wait in the isolate goes to the gate behind the calls waiting there, in their order", () => {
    const { pool } = holding();
    const first = waitOf(pool.admit(call(), 10));
    const second = waitOf(pool.admit(call(), 20));
    const late = pool.admit(call(), KEEP + 1);
    if (!("turn" in late)) throw new Error("the late call asks the gate");
    const [one, two] = [turnOf(first)!, turnOf(second)!];
    expect([one.mayAsk(), two.mayAsk(), late.turn.mayAsk()]).toEqual([true, false, false]);
    one.asked();
    expect([two.mayAsk(), late.turn.mayAsk()]).toEqual([true, false]);
    two.asked();
    expect(late.turn.mayAsk()).toBe(true);
  });

  it("a waiter whose wait in the isolate ends takes the ones ahead of it to the gate, and leaves the later ones", () => {
    const { pool } = holding();
    const waits = [10, 11, 12].map((at) => waitOf(pool.admit(call(), at)));
    waits[1]!.expire();
    const [one, two] = [turnOf(waits[0]!)!, turnOf(waits[1]!)!];
    expect([one.mayAsk(), two.mayAsk()]).toEqual([true, false]);
    expect(waits[2]!.outcome()).toBeUndefined();
    expect(pool.waiting).toBe(1);
  });

  it("a slot freed while the isolate's calls wait at the gate goes back to the gate; the waiters here wait on", () => {
    const { pool, slot } = holding();
    const atGate = pool.admit(call({ limit: 2 }), 1);
    if (!("turn" in atGate)) throw new Error("with a second slot to get, the call asks the gate");
    const here = waitOf(pool.admit(call({ limit: 2 }), 2));
    expect(pool.free(slot, 10, 10)).toBe("return");
    expect(here.outcome()).toBeUndefined();
    // Once the gate answered (granted, here a second slot), a freed slot passes to the waiter here.
    const { slot: second } = pool.add("b", 60_000, 0, 11);
    atGate.turn.done();
    expect(pool.free(second, 20, 9)).toBe("passed");
    expect(slotOf(here)).toBe(second);
  });

  it("a freed slot the isolate may no longer pass on goes back, and the calls waiting here go to the gate", () => {
    const { pool, slot } = holding();
    const here = waitOf(pool.admit(call(), 10));
    expect(pool.free(slot, KEEP + 1, KEEP)).toBe("return");
    expect(turnOf(here)?.mayAsk()).toBe(true);
  });

  it("a call ahead in line that never asks holds the line up LINE_PATIENCE_MS at most", () => {
    let now = 0;
    const { pool } = holding(0, () => now);
    const silent = waitOf(pool.admit(call(), 10));
    const next = pool.admit(call({ maxWaitMs: 0 }), 20);
    if (!("turn" in next)) throw new Error("a call that may not wait asks the gate");
    expect([turnOf(silent)!.mayAsk(), next.turn.mayAsk()]).toEqual([true, false]);
    now = LINE_PATIENCE_MS + 1;
    expect(next.turn.mayAsk()).toBe(true);
  });

  it("a caller that gives up while waiting in the isolate leaves; one whose turn is done frees the line", () => {
    const { pool } = holding();
    const gone = waitOf(pool.admit(call(), 10));
    expect(gone.leave()).toBe(true);
    expect(pool.waiting).toBe(0);
    const late = pool.admit(call({ maxWaitMs: 0 }), 20);
    const later = pool.admit(call({ maxWaitMs: 0 }), 21);
    if (!("turn" in late) || !("turn" in later)) throw new Error("calls that may not wait ask the gate");
    late.turn.done();
    expect(later.turn.mayAsk()).toBe(true);
  });
});

describe("what the gate says", () => {
  it("another isolate's waiting call: calls waiting here go to the gate, nothing is passed on, slots go back", () => {
    const { pool, slot } = holding();
    const here = waitOf(pool.admit(call(), 1));
    expect(pool.kept(["a"], [{ callId: "a", validMs: 60_000 }], 1, 2)).toEqual([]);
    expect(turnOf(here)?.mayAsk()).toBe(true);
    expect(pool.needsKeep(3)).toBe(false);
    expect(pool.free(slot, 4, 4)).toBe("return");
  });

  it("another isolate's waiting call: an idle kept slot goes back at once", () => {
    const { pool, slot } = holding();
    expect(pool.free(slot, 1, 1)).toBe("idle");
    expect(pool.kept(["a"], [{ callId: "a", validMs: 60_000 }], 1, 2)).toEqual(["a"]);
    expect(pool.admit(call(), 3)).toHaveProperty("turn");
  });

  it("a keep is due before half the quiet time is gone, and its answer drops the slots the gate no longer holds", () => {
    const { pool } = holding();
    expect(pool.needsKeep(KEEP / 2 - 1)).toBe(false);
    expect(pool.needsKeep(KEEP / 2 + 1)).toBe(true);
    expect(pool.kept(["a"], [], 0, KEEP / 2 + 1)).toEqual([]);
    expect(pool.slots.size).toBe(0);
    expect(pool.isEmpty()).toBe(true);
  });
});

describe("localWaitLeft", () => {
  it("is localWaitMs, or less when the call's longest wait ends sooner; never negative", () => {
    expect(localWaitLeft({ rules: { limit: 1 }, askedAt: 0 }, 250, 10)).toBe(250);
    expect(localWaitLeft({ rules: { limit: 1, maxWaitMs: 100 }, askedAt: 0 }, 250, 10)).toBe(90);
    expect(localWaitLeft({ rules: { limit: 1, maxWaitMs: 100 }, askedAt: 0 }, 250, 500)).toBe(0);
  });
});
