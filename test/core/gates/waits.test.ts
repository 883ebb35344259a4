import { describe, expect, it } from "vitest";
import { acquireSlot, createGateState } from "../../../src/gates/queue";
import {
  averageHold,
  busyMessage,
  DEFAULT_MAX_QUEUE,
  queueFull,
  retryAfterMs,
  waitEnd,
} from "../../../src/gates/waits";

/** The rules of a gate's waits (src/gates/waits.ts), one for the gate's queue and an isolate's waiting calls. */
describe("gate waits", () => {
  it("a wait ends maxWaitMs after the call first asked, or never", () => {
    expect(waitEnd({ rules: { limit: 1, maxWaitMs: 50 }, askedAt: 1_000 })).toBe(1_050);
    expect(waitEnd({ rules: { limit: 1 }, askedAt: 1_000 })).toBeUndefined();
  });

  it("a queue is full at maxQueue waiting calls (64 unless the rules say)", () => {
    expect([queueFull(1, 2), queueFull(2, 2), queueFull(0, 0)]).toEqual([false, true, true]);
    expect([queueFull(DEFAULT_MAX_QUEUE - 1), queueFull(DEFAULT_MAX_QUEUE)]).toEqual([false, true]);
  });

  it("the retry hint counts everyone waiting ahead, `limit` at a time, between 10 ms and a minute", () => {
    expect(retryAfterMs(0, 1, 200)).toBe(200);
    expect(retryAfterMs(3, 2, 1_000)).toBe(2_000);
    expect(retryAfterMs(0, 1, 1)).toBe(10);
    expect(retryAfterMs(1_000, 1, 1_000)).toBe(60_000);
  });

  it("the hold average moves a fifth of the way to each hold, never below 1 ms", () => {
    expect(averageHold(1_000, 0)).toBe(800);
    expect(averageHold(100, 600)).toBe(200);
    expect(averageHold(1, -50)).toBe(1);
  });

  it("the gate's queue refuses with the same rule and hint", () => {
    const state = createGateState({ limit: 2, maxQueue: 3 });
    const ask = (callId: string) =>
      acquireSlot(state, { callId, tool: "t", rules: { limit: 2, maxQueue: 3 }, leaseMs: 100, askedAt: 0 }, 0).outcome;
    for (const id of ["a", "b", "c", "d", "e"]) ask(id);
    expect(ask("f")).toEqual({ status: "busy", reason: "full", retryAfterMs: retryAfterMs(3, 2, state.avgHoldMs) });
    expect(busyMessage(state.holders.size, state.waiters.length)).toBe("2 running, 3 waiting");
  });
});
