import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isolateSlots } from "../../../worker/gates/slot-pool";
import { tenantLedger } from "../../../worker/ledger/address";
import { uid } from "../helpers/adapters";
import { eventually } from "../../wait";
import { waitersOn } from "../helpers/durable-state";
import { json, request } from "../helpers/requests";

/**
 * A call waiting among its isolate's calls is woken by another request (the one whose call frees
 * the slot). That request ends soon after; the woken call must still run to its end in its own
 * request. Through the deployed Worker (each request its own I/O context) and the demo's sleep gate.
 */

const GATE = "demo:tool:sleep";
const sleepBody = (id: string, ms: number) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "sleep", arguments: JSON.stringify({ ms }) } }],
});
const runSleep = (id: string, ms: number) => request("/v1/calls/openai", { body: sleepBody(id, ms) }).then(json);

/** Resolves with the promise's value, or fails naming `what` once `ms` have passed (a bound for hangs). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer!: ReturnType<typeof setTimeout>;
  const bound = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  );
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

describe("a call woken in its isolate by another request", () => {
  it("runs to its end after the request that freed the slot has ended", async () => {
    const holder = `hold-${uid()}`;
    const waiter = `wait-${uid()}`;
    const ledger = tenantLedger(env, "demo");
    await ledger.map(); // its shards known here, so for() answers a plain stub
    const held = runSleep(holder, 20_000);
    // The holder runs and its journal watches it, so its cancel reaches it.
    await eventually(
      async () => (await waitersOn(ledger.for(holder) as unknown as DurableObjectStub, holder)) > 0,
      "the holder runs and is watched",
    );
    const pool = isolateSlots.of(GATE);
    // The waiter must wait in the isolate (not at the gate): the gate has just said nobody waits there
    // (as a keep's answer does), at every poll until the waiter is in.
    let waited!: Promise<any>;
    let sent = false;
    await eventually(() => {
      pool.kept([], [], 0, Date.now());
      if (!sent) {
        sent = true;
        waited = runSleep(waiter, 1_500);
      }
      return pool.waiting === 1;
    }, "the waiter waits in the isolate");

    const cancel = await request(`/v1/calls/${holder}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(202);
    // The holder's request answers and ends; its slot went to the waiter (or back to the gate, for it).
    expect((await held).calls[0]).toMatchObject({ callId: holder, status: "cancelled" });
    const answer = await within(waited, 15_000, "the woken call");
    expect(answer.calls[0]).toMatchObject({ callId: waiter, status: "succeeded" });
    // The woken call gave its slot up when it ended: nothing of the isolate's stays busy.
    await eventually(() => [...pool.slots.values()].every((slot) => !slot.busy), "no kept slot stays busy");
  });
});
