/**
 * The quiet wait (worker/gates/limiter.ts, quietWaitMs): a call told of its wait only once the wait
 * outlasts it, so short waits cost its journal no claim and no watch; a slot that came sooner is
 * marked `waited`, so the pipeline still asks the journal whether a cancel was accepted meanwhile.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import type { SlotRequest } from "../../src/gates/limiter";
import { tenantGates } from "../../worker/gates/address";
import { createGateLimiter } from "../../worker/gates/limiter";
import { eventually } from "../wait";

const freshGate = () => `t1:tool:quiet-${crypto.randomUUID()}`;
const stubOf = (gate: string) => env.GATES.get(env.GATES.idFromName(gate));
const req = (gate: string, callId: string, over: Partial<SlotRequest> = {}): SlotRequest => ({
  gate,
  callId,
  tool: "tool",
  rules: { limit: 1, maxQueue: 10 },
  leaseMs: 60_000,
  ...over,
});
const untilQueued = (gate: string) => eventually(async () => (await stubOf(gate).snapshot()).queueDepth === 1, "the call waits at the gate");

it("a wait shorter than the quiet time is not announced, and its grant says it waited", async () => {
  const gate = freshGate();
  const limiter = createGateLimiter(tenantGates(env, "t1"), { quietWaitMs: 60_000 });
  const first = await limiter.acquire(req(gate, "a"));
  expect(first).toMatchObject({ ok: true });
  expect(first.ok && first.waited).toBeFalsy(); // granted at once
  let told = 0;
  const second = limiter.acquire(req(gate, "b", { onQueued: () => told++ }));
  await untilQueued(gate);
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
