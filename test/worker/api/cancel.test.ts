import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { uid } from "../helpers/adapters";
import { expectNoSlotHeld, expectOneTerminalRecordEach, faultTenant, type TenantEnv } from "../helpers/faults";
import { eventually } from "../../wait";
import { json, request } from "../helpers/requests";
import { claim, journal, record, shardOfCall } from "../helpers/ledger";
import { DEFAULT_WATCH_DELAY_MS } from "../../../worker/ledger/journal";
import type { ClaimWatch, JournalClaim } from "../../../src/journal";

/**
 * POST /v1/calls/:id/cancel through HTTP, the ledger and real Gates: a call waiting at a gate,
 * cancelled or abandoned by its client, never starts (the test holds the gate and frees it when it
 * wants); a running call learns of its cancel within the journal's watch delay.
 */

const gateStub = (gate: string) => bindings.GATES.get(bindings.GATES.idFromName(gate));
const sleepCall = (id: string, ms: number, tool: string) => ({
  id,
  type: "function",
  function: { name: tool, arguments: JSON.stringify({ ms }) },
});

/** POST /v1/calls/openai with one sleep call; answers its record. */
async function runSleep(env: TenantEnv, id: string, ms: number, signal?: AbortSignal, tool = "sleep"): Promise<any> {
  const body = { role: "assistant", content: null, tool_calls: [sleepCall(id, ms, tool)] };
  const res = await request("/v1/calls/openai", { env, body, ...(signal ? { signal } : {}) });
  expect(res.status).toBe(200);
  return (await json(res)).calls[0];
}

/**
 * A tenant whose sleep gate is held by "holder" (a slot the test frees when it wants); the call `id` waits behind it.
 */
async function queuedBehindHolder(prefix: string, signal?: AbortSignal) {
  const { name, env } = faultTenant(prefix, { tools: ["sleep"] });
  const gate = `${name}:tool:sleep`;
  const stub = gateStub(gate);
  const held = await stub.acquire({
    gate,
    callId: "holder",
    tool: "sleep",
    rules: { limit: 1, maxQueue: 8 },
    askedAt: Date.now(),
    leaseMs: 60_000,
    pollMs: 5_000,
    tenant: name,
  });
  expect(held.ok).toBe(true);
  const id = `q-${uid()}`;
  const outcome = runSleep(env, id, 5, signal).catch((error: unknown) => error);
  await eventually(
    async () => (await stub.snapshot()).queued.some((w) => w.callId === id),
    "the call waits at the gate",
  );
  return { env, stub, id, outcome };
}

describe("a queued call whose cancel was accepted", () => {
  it("never starts, though the gate frees right after the 202", async () => {
    const { env, stub, id, outcome } = await queuedBehindHolder("cq");
    const cancel = await request(`/v1/calls/${id}/cancel`, { env, method: "POST" });
    expect(cancel.status).toBe(202);
    expect((await json(cancel)).state).toBe("cancel_requested");
    await stub.release("holder");

    const record = await outcome;
    expect(record).toMatchObject({ callId: id, status: "cancelled", attempts: 0, error: { code: "cancelled" } });
    expect(record.output).toBeUndefined(); // the sleep never ran: it would have reported its interval
    await expectOneTerminalRecordEach(env, [id]);
    await expectNoSlotHeld(env);
  });
});

describe("a running call", () => {
  it("cancelled in its first moments, sees its signal once its watch starts (250 ms in), not a second later", async () => {
    const { env } = faultTenant("crun", { tools: ["sleep_pool"] });
    const id = `r-${uid()}`;
    const running = runSleep(env, id, 5_000, undefined, "sleep_pool");
    await eventually(async () => (await request(`/v1/calls/${id}`, { env })).status === 200, "the call is claimed");
    expect((await request(`/v1/calls/${id}/cancel`, { env, method: "POST" })).status).toBe(202);
    const record = await running;
    expect(record).toMatchObject({ status: "cancelled", attempts: 1 });
    // Watched from DEFAULT_WATCH_DELAY_MS (250 ms) into the call: well before the 1 s the watch used to wait.
    expect(DEFAULT_WATCH_DELAY_MS).toBeLessThan(1_000);
    expect(record.durationMs).toBeLessThan(1_000);
  });
});

describe("a client that goes away while its call waits at a gate", () => {
  it("(its request's signal aborts) the call leaves the queue and never runs", async () => {
    const client = new AbortController();
    const { env, stub, id, outcome } = await queuedBehindHolder("cgone", client.signal);
    client.abort();
    await outcome; // in process the app still answers the gone client; over a socket nobody reads it
    await eventually(async () => (await stub.snapshot()).queueDepth === 0, "the call left the queue");
    await stub.release("holder");

    const { record } = await json(await request(`/v1/calls/${id}?wait=10`, { env }));
    expect(record).toMatchObject({ status: "cancelled", attempts: 0 });
    expect(record.output).toBeUndefined();
    await expectNoSlotHeld(env);
  });
});

/** A running echo call for the journal (read-only ones defer their claim). */
const begin = (tenant: string, callId: string, readOnly = false) =>
  claim(tenant, callId, readOnly ? { policy: { readOnly: true } } : {});

describe("the ledger journal of a call waiting at a gate", () => {
  const watchOf = (claim: JournalClaim): ClaimWatch => {
    if (claim.kind !== "new" || !claim.watch) throw new Error(`expected a new claim with a watch, got ${claim.kind}`);
    return claim.watch;
  };

  it("mayStart confirms with the shard: true until a cancel is accepted, false after", async () => {
    const tenant = `cw-${uid()}`;
    const j = journal(tenant, { watchDelayMs: 60_000 });
    const watch = watchOf(await j.begin(begin(tenant, "w1")));
    expect(await watch.mayStart()).toBe(true);
    expect(await shardOfCall(tenant, "w1").cancel("w1", null)).toMatchObject({ ok: true, state: "requested" });
    expect(await watch.mayStart()).toBe(false);
    await j.finish(record(tenant, "w1", "cancelled"));
  });

  it("queued() starts watching at once: a cancel aborts the call's signal without waiting for the watch delay", async () => {
    const tenant = `cw-${uid()}`;
    const j = journal(tenant, { watchDelayMs: 60_000 });
    const claim = await j.begin(begin(tenant, "w2"));
    watchOf(claim).queued();
    await shardOfCall(tenant, "w2").cancel("w2", null);
    await eventually(async () => claim.kind === "new" && claim.signal!.aborted, "the claim's signal aborts");
    await j.finish(record(tenant, "w2", "cancelled"));
  });

  it("a read-only call granted after a quiet wait (never claimed) may start at once, without a claim", async () => {
    const tenant = `cw-${uid()}`;
    const j = journal(tenant, { deferMs: 60_000 });
    const claim = await j.begin(begin(tenant, "w4", true));
    expect(await watchOf(claim).mayStart()).toBe(true); // nobody could have cancelled a call the ledger never knew
    expect(await shardOfCall(tenant, "w4").get("w4", null)).toBeNull();
    await j.finish(record(tenant, "w4", "succeeded"));
  });

  it("a read-only call is claimed as soon as it queues: it shows as running, and a cancel then holds it back", async () => {
    const tenant = `cw-${uid()}`;
    const j = journal(tenant);
    const claim = await j.begin(begin(tenant, "w3", true));
    expect(await shardOfCall(tenant, "w3").get("w3", null)).toBeNull(); // deferred: not claimed yet
    watchOf(claim).queued();
    await eventually(
      async () => (await shardOfCall(tenant, "w3").get("w3", null))?.record.status === "running",
      "the call is claimed",
    );
    expect(await shardOfCall(tenant, "w3").cancel("w3", null)).toMatchObject({ ok: true, state: "requested" });
    expect(await watchOf(claim).mayStart()).toBe(false);
    await eventually(async () => claim.kind === "new" && claim.signal!.aborted, "the claim's signal aborts");
    await j.finish(record(tenant, "w3", "cancelled"));
    expect((await shardOfCall(tenant, "w3").get("w3", null))?.record.status).toBe("cancelled");
  });
});

describe("a call whose client goes away on Cloudflare", () => {
  // Cloudflare tears a request down at once when its client leaves, unless work is pending in
  // waitUntil; only a request kept alive sees request.signal abort. Local workerd never tears it down
  // (nor tells it the client left), so what can be checked here is the hand-over itself.
  it("keeps its request alive (waitUntil) from its claim until its record is stored", async () => {
    for (const readOnly of [false, true]) {
      const tenant = `ka-${uid()}`;
      const kept: Promise<unknown>[] = [];
      const j = journal(tenant, { waitUntil: (p) => kept.push(p) });
      const id = `k-${readOnly}`;
      await j.begin(begin(tenant, id, readOnly));
      // (The claim's own write may be handed over too: group commit sends it under waitUntil.)
      const settled = kept.map(() => false);
      kept.forEach((p, i) => void p.then(() => (settled[i] = true)));
      // The call lives: one hand-over stays pending, keeping the request alive.
      await eventually(
        async () => settled.filter((done) => !done).length === 1,
        "only the call's keep-alive is pending",
      );

      await j.finish(record(tenant, id, "cancelled"));
      await Promise.all(kept);
      expect((await shardOfCall(tenant, id).get(id, null))?.record.status).toBe("cancelled");
    }
  });
});
