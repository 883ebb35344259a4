import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardCount, shardOf, tenantLedger } from "../../../worker/ledger/address";
import { uid } from "../helpers/adapters";
import { expectNoSlotHeld, expectOneTerminalRecordEach, faultTenant, type TenantEnv } from "../helpers/faults";
import { eventually, waitPast } from "../../wait";
import { isPolling } from "../helpers/durable-state";
import { ADMIN_KEY, json, request, untilApprovalDue } from "../helpers/requests";
import { tune } from "../helpers/ledger";

/**
 * Durable Object faults end to end through HTTP: a gate holder that vanishes, the gate and the
 * ledger shard evicted while a call runs, and alarms that fire twice.
 */

const gateStub = (gate: string) => bindings.GATES.get(bindings.GATES.idFromName(gate));
const rawGate = (gate: string) => gateStub(gate) as unknown as DurableObjectStub;
/** The call's home shard (the tenant's shard map is never changed here). */
const rawShard = (tenant: string, callId: string) =>
  tenantLedger(bindings, tenant).shard(shardOf(callId, shardCount(bindings))) as unknown as DurableObjectStub;

const sleepCall = (id: string, ms: number, tool = "sleep") => ({
  id,
  type: "function",
  function: { name: tool, arguments: JSON.stringify({ ms }) },
});
/** POST /v1/calls/openai with sleep calls; answers the records. */
async function runSleeps(env: TenantEnv, ...calls: ReturnType<typeof sleepCall>[]): Promise<any[]> {
  const res = await request("/v1/calls/openai", { env, body: { role: "assistant", content: null, tool_calls: calls } });
  expect(res.status).toBe(200);
  return (await json(res)).calls;
}

describe("a gate holder that vanishes", () => {
  it("keeps its slot until the lease expires; the alarm then frees it and the waiter runs, once", async () => {
    const { name, env } = faultTenant("fghost", { tools: ["sleep"] });
    const gate = `${name}:tool:sleep`;
    const stub = gateStub(gate);
    // A Worker took the slot, then died: no release will ever come.
    const ghost = await stub.acquire({
      gate,
      callId: "ghost",
      tool: "sleep",
      rules: { limit: 1, maxQueue: 8 },
      askedAt: Date.now(),
      leaseMs: 1_000,
      pollMs: 5_000,
      tenant: name,
    });
    if (!ghost.ok) throw new Error(`the ghost got no slot: ${ghost.code}`);

    const id = `after-ghost-${uid()}`;
    const running = runSleeps(env, sleepCall(id, 5));
    // The gate has answered the call's acquire with a wait: its long poll is open, not granted.
    await eventually(() => isPolling(gate, id), "the call's poll waits at the gate");
    // Halfway through the lease (from the gate's own times) the ghost still holds the slot.
    const [held] = (await stub.snapshot()).holders;
    await waitPast(held!.since + (held!.expiresAt - held!.since) / 2);
    expect((await stub.snapshot()).holders.map((h) => h.callId)).toEqual(["ghost"]); // not before its lease ends
    expect(Date.now(), "checked before the lease ends").toBeLessThan(ghost.expiresAt);

    await waitPast(ghost.expiresAt);
    await runDurableObjectAlarm(rawGate(gate)); // the alarm may already have run on its own: either way, once
    await runDurableObjectAlarm(rawGate(gate));
    const [record] = await running;
    expect(record).toMatchObject({ callId: id, status: "succeeded" });
    expect(record.output.structured.startedAt).toBeGreaterThanOrEqual(ghost.expiresAt);

    expect(await stub.release("ghost")).toEqual({ ok: true, was: "absent" }); // a late release changes nothing
    await expectOneTerminalRecordEach(env, [id]);
    await expectNoSlotHeld(env);
  });
});

describe("Durable Object eviction mid-call", () => {
  it("evicting the gate and the ledger shard while a call runs: it finishes once, its slot still bounds the next call, none leaks", async () => {
    const { name, env } = faultTenant("fevict", { tools: ["sleep"] });
    const gate = `${name}:tool:sleep`;
    const [first, second] = [`ev1-${uid()}`, `ev2-${uid()}`];
    let firstDone = false;
    const one = runSleeps(env, sleepCall(first, 1500)).finally(() => (firstDone = true));
    await eventually(
      async () => (await gateStub(gate).snapshot()).holders.some((h) => h.callId === first),
      "the first call holds the slot",
    );

    // Nothing is in flight at either object now (eviction would wait for that), only the call's state.
    await Promise.all([evictDurableObject(rawGate(gate)), evictDurableObject(rawShard(name, first))]);
    expect(firstDone).toBe(false);
    expect((await gateStub(gate).snapshot()).holders.map((h) => h.callId)).toEqual([first]); // reloaded from SQLite
    expect((await json(await request(`/v1/calls/${first}`, { env }))).record.status).toBe("running");

    // A new call waits at the fresh gate instance; the model repeats the running call, which joins the first run.
    const two = runSleeps(env, sleepCall(second, 5));
    const repeat = runSleeps(env, sleepCall(first, 1500));
    const [[a], [b], [again]] = await Promise.all([one, two, repeat]);
    expect([a.status, b.status]).toEqual(["succeeded", "succeeded"]);
    expect(again).toMatchObject({ status: "succeeded", replay: true });
    expect(again.output.structured).toEqual(a.output.structured); // the same run, not a second one
    // Limit 1 held across the eviction
    expect(b.output.structured.startedAt).toBeGreaterThanOrEqual(a.output.structured.endedAt);
    await expectOneTerminalRecordEach(env, [first, second]);
    await expectNoSlotHeld(env);
  });
});

describe("alarms that fire twice", () => {
  it("a second alarm on the gate and the ledger, mid-call and after, changes nothing", async () => {
    const { name, env } = faultTenant("falarm", { tools: ["sleep"] });
    const gate = `${name}:tool:sleep`;
    const id = `al-${uid()}`;
    const running = runSleeps(env, sleepCall(id, 400));
    await eventually(async () => (await gateStub(gate).snapshot()).holders.length === 1, "the call holds the slot");
    const during = await gateStub(gate).snapshot();
    for (let i = 0; i < 2; i++) {
      await runDurableObjectAlarm(rawGate(gate));
      await runDurableObjectAlarm(rawShard(name, id));
    }
    expect(await gateStub(gate).snapshot()).toEqual(during); // the lease is not due: the holder stays
    expect((await json(await request(`/v1/calls/${id}`, { env }))).record.status).toBe("running");

    const [record] = await running;
    expect(record.status).toBe("succeeded");
    const stored = (await json(await request(`/v1/calls/${id}`, { env }))).record;
    for (let i = 0; i < 2; i++) {
      await runDurableObjectAlarm(rawGate(gate));
      await runDurableObjectAlarm(rawShard(name, id));
    }
    expect((await json(await request(`/v1/calls/${id}`, { env }))).record).toEqual(stored);
    await expectOneTerminalRecordEach(env, [id]);
    await expectNoSlotHeld(env);
  });

  it("an approval expired by the ledger's alarm is denied once; a second alarm and a late decision change nothing", async () => {
    const { name, env } = faultTenant("fappr", { tools: ["send_message"] });
    const id = `ap-${uid()}`;
    await tune(rawShard(name, id), { approvalTtlMs: 30 });
    const res = await request("/v1/calls/openai", {
      env,
      body: {
        role: "assistant",
        content: null,
        tool_calls: [
          { id, type: "function", function: { name: "send_message", arguments: '{"to":"bob","text":"hi"}' } },
        ],
      },
    });
    expect((await json(res)).calls[0].status).toBe("pending");
    await untilApprovalDue(id, env);
    await runDurableObjectAlarm(rawShard(name, id));
    const expired = await json(await request(`/v1/calls/${id}`, { env }));
    expect(expired).toMatchObject({ record: { status: "denied" }, approval: { state: "expired" } });
    await runDurableObjectAlarm(rawShard(name, id));
    expect(await json(await request(`/v1/calls/${id}`, { env }))).toEqual(expired);
    expect((await request(`/v1/approvals/${id}`, { env, key: ADMIN_KEY, body: { decision: "approve" } })).status).toBe(
      409,
    );
    await expectOneTerminalRecordEach(env, [id]);
  });
});
