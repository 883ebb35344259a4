import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECOND_ISOLATE_CONFIG } from "../../fixtures/second-isolate-tenant";
import { tenantGates } from "../../../worker/gates/address";
import { Gate } from "../../../worker/gates/gate";
import { createGateLimiter } from "../../../worker/gates/limiter";
import { createSlotPools, KEEP_MS } from "../../../src/gates/slot-pool";
import { isolateSlots } from "../../../worker/gates/slot-pool";
import { uid } from "../helpers/adapters";
import { eventually } from "../../wait";
import { BASE, CALL_KEY, json, request } from "../helpers/requests";

/**
 * A sequential gate starts its calls in the order they came, wherever they wait: in their isolate
 * for one of its kept slots, or at the gate. Through the deployed Worker (each call its own request)
 * and the demo's sleep tool ({ limit: 1 }), as a client sees it: calls sent at a steady pace while a
 * longer call of the same isolate holds the gate. Some of them come while the isolate still passes
 * its slots on (they wait in the isolate), later ones once it no longer does (they go to the gate).
 */

const GATE = "demo:tool:sleep";
const sleepBody = (id: string, ms: number) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "sleep", arguments: JSON.stringify({ ms }) } }],
});
const runSleep = async (id: string, ms: number) =>
  (await json(await request("/v1/calls/openai", { body: sleepBody(id, ms) }))).calls[0];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a sequential gate", () => {
  it("starts calls sent at a steady pace behind a holder in the order they were sent", async () => {
    const run = uid();
    const pool = isolateSlots.of(GATE);
    // Counts the calls that asked the gate's limiter: a call's journal claims its id before, at its
    // own pace, so the next call is sent only once the last one asked (the order they came is known).
    let asked = 0;
    const admit = pool.admit;
    pool.admit = function (this: typeof pool, ...args: Parameters<typeof admit>) {
      asked++;
      return admit.apply(this, args);
    };
    try {
      const holder = runSleep(`hold-${run}`, 1_500);
      await eventually(
        () => [...pool.slots.values()].some((slot) => slot.busy),
        "the holder runs on a slot its isolate keeps",
      );
      // The load of the report (issue 27): 20 calls 40 ms apart, each sent while the earlier ones wait.
      const ids = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, "0")}-${run}`);
      const calls: Promise<any>[] = [];
      for (const [i, id] of ids.entries()) {
        calls.push(runSleep(id, 5));
        await eventually(() => asked === i + 2, `${id} asks for a slot`);
        await pause(40);
      }
      const records = await Promise.all(calls);
      expect((await holder).status).toBe("succeeded");
      expect(records.map((r) => r.status)).toEqual(ids.map(() => "succeeded"));
      const started = [...records]
        .sort((a, b) => a.output.structured.startedAt - b.output.structured.startedAt)
        .map((r) => r.callId);
      expect(started).toEqual(ids);
    } finally {
      pool.admit = admit;
    }
  });
});

describe("a sequential gate across isolates", () => {
  // Isolate A is the second toolgate Worker (test/runner/second-isolate.ts): its calls are its own
  // requests and it keeps its slots. Isolate B is this one: a limiter with slots of its own, whose
  // probes come now and then between A's calls. Both wait at one gate.
  const tenant = JSON.parse(SECOND_ISOLATE_CONFIG).name as string;
  const gate = `${tenant}:tool:sleep`;
  const second = (env as unknown as { SECOND_ISOLATE: Fetcher }).SECOND_ISOLATE;
  type Run = { id: string; sent: number; started: number };
  const runA = async (id: string, ms: number): Promise<Run> => {
    const sent = Date.now();
    const headers = { authorization: `Bearer ${CALL_KEY}`, "content-type": "application/json" };
    const init = { method: "POST", headers, body: JSON.stringify(sleepBody(id, ms)) };
    const record = (await json(await second.fetch(new Request(`${BASE}/v1/calls/openai`, init)))).calls[0];
    expect(record).toMatchObject({ callId: id, status: "succeeded" });
    return { id, sent, started: record.output.structured.startedAt };
  };

  // A's calls: more than A serves (they wait, in A and at the gate), or fewer (A passes its slot on).
  const loads = [
    { name: "more than it serves", everyMs: 30, sleepMs: 20 },
    { name: "what it keeps up with", everyMs: 40, sleepMs: 10 },
  ];
  for (const { name, everyMs, sleepMs } of loads) {
    it(`with one isolate sending ${name}, its calls overtake another's only within KEEP_MS of that call reaching the gate`, async () => {
      const probes = createGateLimiter(tenantGates(env, tenant), { waitUntil: () => {}, pools: createSlotPools() });
      const runB = async (id: string): Promise<Run> => {
        const sent = Date.now();
        const grant = await probes.acquire({ gate, callId: id, tool: "sleep", rules: { limit: 1 }, leaseMs: 60_000 });
        if (!grant.ok) throw new Error(`probe ${id}: ${grant.code}`);
        const started = Date.now();
        await pause(sleepMs);
        await grant.release();
        return { id, sent, started };
      };
      const run = uid();
      // When each call's first acquire reached the gate, by the gate's clock (RPC calls the class's methods).
      const reached = new Map<string, number>();
      const acquire = Gate.prototype.acquire;
      Gate.prototype.acquire = function (this: Gate, input) {
        if (!reached.has(input.callId)) reached.set(input.callId, Date.now());
        return acquire.call(this, input);
      };
      try {
        // Both isolates warm (a first request builds the tenant).
        await Promise.all([runA(`warm-${run}`, 0), runB(`warm-${run}`)]);
        const a: Promise<Run>[] = [];
        const b: Promise<Run>[] = [];
        for (let i = 0; i < 60; i++) {
          a.push(runA(`a${String(i).padStart(2, "0")}-${run}`, sleepMs));
          await pause(everyMs / 2);
          if (i % 6 === 3) b.push(runB(`b${i}-${run}`));
          await pause(everyMs / 2);
        }
        const [ofA, ofB] = [await Promise.all(a), await Promise.all(b)];
        // For each probe, A's calls that came after it but started first, and those that came before
        // it but started after it, by how much.
        const windows = ofB.map((probe) => {
          const overtook = ofA.filter((r) => r.sent > probe.sent && r.started < probe.started);
          const overtaken = ofA.filter((r) => r.sent < probe.sent && r.started > probe.started);
          return {
            overtook: overtook.length,
            afterReached: Math.max(0, ...overtook.map((r) => r.sent - reached.get(probe.id)!)),
            overtaken: overtaken.length,
            before: Math.max(0, ...overtaken.map((r) => probe.sent - r.sent)),
          };
        });
        // The measure (shown with --silent=false): how far apart the calls that passed each other came.
        console.log(`A sending ${name}:`, JSON.stringify(windows));
        // A passes its slots to its own calls only until KEEP_MS after the gate last answered it that
        // no other isolate's call waited, which was an answer to a request that reached the gate before the probe.
        for (const w of windows) expect(w.afterReached).toBeLessThan(KEEP_MS);
      } finally {
        Gate.prototype.acquire = acquire;
      }
    });
  }
});
