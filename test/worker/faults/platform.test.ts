import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardCount, shardOf, tenantLedger } from "../../../worker/ledger/address";
import { uid, upstreams } from "../helpers/adapters";
import {
  allRecords,
  arrivals,
  expectNoSlotHeld,
  expectOneTerminalRecordEach,
  faultTenant,
  type TenantEnv,
} from "../helpers/faults";
import { eventually } from "../../wait";
import { isPolling, waiterDeadline } from "../helpers/durable-state";
import { QUIET_WAIT_MS } from "../../../worker/gates/limiter";
import { WAIT_GRACE_MS } from "../../../worker/gates/protocol";
import { failTransactions, faultyNamespace, writesFor, type PlatformFault } from "./inject";
import { json, request } from "../helpers/requests";

/**
 * Platform faults end to end through HTTP: stubs throwing the errors Cloudflare documents for
 * Durable Objects (retryable, overloaded) and errors of the objects' own code, storage failing in the
 * middle of a transaction, and a gate alarm that throws. After each: the tool ran at most once, every
 * call has at most one record and none is left non-terminal, no gate holds a slot.
 */

const gateStub = (gate: string) => bindings.GATES.get(bindings.GATES.idFromName(gate));
const rawGate = (gate: string) => gateStub(gate) as unknown as DurableObjectStub;
/** The call's home shard (the tenant's shard map is never changed here). */
const rawShard = (tenant: string, callId: string) =>
  tenantLedger(bindings, tenant).shard(shardOf(callId, shardCount(bindings))) as unknown as DurableObjectStub;
/** This isolate reads the tenant's shard map once, before the faults: the faults below then meet the shards alone. */
const learnShardMap = async (env: TenantEnv) => expect((await request("/v1/calls", { env })).status).toBe(200);

/** A tenant whose one tool, `post_once` (POST, not idempotent, limit 1), is counted by the meter. */
function countedTenant(prefix: string) {
  const bucket = `${prefix}-${uid()}`;
  const tenant = faultTenant(prefix, {
    http: [
      {
        name: "post_once",
        description: "counted",
        method: "POST",
        url: `${upstreams.meter}/m/${bucket}`,
        concurrency: { limit: 1 },
      },
    ],
  });
  return { ...tenant, gate: `${tenant.name}:tool:post_once`, runs: async () => (await arrivals(bucket)).length };
}

const postCall = (id: string) => ({ id, type: "function", function: { name: "post_once", arguments: "{}" } });

/** POST /v1/calls/openai with post_once calls; answers the status, the tool messages and the records. */
async function runPosts(env: TenantEnv, ...ids: string[]) {
  const res = await request("/v1/calls/openai", {
    env,
    body: { role: "assistant", content: null, tool_calls: ids.map(postCall) },
  });
  const body = await json(res);
  return { status: res.status, messages: body.messages as { content: string }[], records: body.calls as any[] };
}

/** Every record of the tenant is terminal (none stuck running or pending). */
async function expectNoneOpen(env: TenantEnv): Promise<void> {
  for (const record of await allRecords(env))
    expect(["running", "pending"], `${record.callId} is ${record.status}`).not.toContain(record.status);
}

const always = (kind: PlatformFault) => () => kind;
/** The first `times` calls of `method` fail with `kind`; everything else reaches the object. */
function firstCalls(method: string, kind: PlatformFault, times = 1) {
  let left = times;
  return (called: string) => (called === method && left-- > 0 ? kind : undefined);
}

describe("stub errors: retryable", () => {
  it("a ledger write and a gate acquire that fail retryable are retried with a fresh stub; the call runs once", async () => {
    const t = countedTenant("fretry");
    const ledger = faultyNamespace(bindings.LEDGER, firstCalls("writeMany", "retryable"));
    const gates = faultyNamespace(bindings.GATES, firstCalls("acquire", "retryable"));
    const id = `rt-${uid()}`;
    const { status, records } = await runPosts({ ...t.env, LEDGER: ledger.namespace, GATES: gates.namespace }, id);
    expect(status).toBe(200);
    expect(records[0]).toMatchObject({ callId: id, status: "succeeded" });
    expect(await t.runs()).toBe(1);

    const acquires = gates.calls.filter((c) => c.method === "acquire");
    expect(acquires.map((c) => c.fault)).toEqual(["retryable", undefined]);
    expect(acquires[1]!.stub).not.toBe(acquires[0]!.stub); // a fresh stub
    const begins = ledger.calls.filter(
      (c) => c.method === "writeMany" && writesFor([c], id).some((w) => w.op === "begin"),
    );
    expect(begins.map((c) => c.fault)).toEqual(["retryable", undefined]);
    expect(begins[1]!.stub).not.toBe(begins[0]!.stub);

    await expectOneTerminalRecordEach(t.env, [id]);
    await expectNoSlotHeld(t.env);
  });
});

describe("stub errors: overloaded", () => {
  it("an overloaded ledger is not retried: the batch answers 200 with each call busy and a hint, and nothing runs", async () => {
    const t = countedTenant("fover");
    const ledger = faultyNamespace(bindings.LEDGER, (method) => (method === "writeMany" ? "overloaded" : undefined));
    const ids = [`ov1-${uid()}`, `ov2-${uid()}`];
    const { status, records, messages } = await runPosts({ ...t.env, LEDGER: ledger.namespace }, ...ids);
    expect(status).toBe(200);
    for (const record of records)
      expect(record).toMatchObject({ status: "failed", error: { code: "busy", retryAfterMs: 1000 } });
    expect(messages[0]!.content).toMatch(/overloaded; try again in 1 s/);
    expect(await t.runs()).toBe(0);
    // Each write went out once: the claim, then the attempt to record the busy outcome.
    for (const id of ids)
      expect(writesFor(ledger.calls, id)).toEqual([
        { op: "begin", fault: "overloaded" },
        { op: "record", fault: "overloaded" },
      ]);

    // Nothing was stored for them, and nothing is left open.
    for (const id of ids) expect((await request(`/v1/calls/${id}`, { env: t.env })).status).toBe(404);
    await expectNoneOpen(t.env);
    await expectNoSlotHeld(t.env);
  });

  it("an overloaded gate is not retried: the call answers busy with a hint, the tool does not run, its record ends terminal", async () => {
    const t = countedTenant("fgover");
    const gates = faultyNamespace(bindings.GATES, (method) => (method === "acquire" ? "overloaded" : undefined));
    const id = `go-${uid()}`;
    const { status, records } = await runPosts({ ...t.env, GATES: gates.namespace }, id);
    expect(status).toBe(200);
    expect(records[0]).toMatchObject({ status: "failed", error: { code: "busy", retryAfterMs: 1000 } });
    expect(gates.calls.filter((c) => c.method === "acquire")).toHaveLength(1);
    expect(await t.runs()).toBe(0);
    const stored = await expectOneTerminalRecordEach(t.env, [id]);
    expect(stored.get(id)).toMatchObject({ status: "failed", error: { code: "busy" } });
    await expectNoSlotHeld(t.env);
  });

  it("a read route answers 503 overloaded with Retry-After, asking each shard once", async () => {
    const t = countedTenant("fread");
    await learnShardMap(t.env);
    const ledger = faultyNamespace(bindings.LEDGER, always("overloaded"));
    const env = { ...t.env, LEDGER: ledger.namespace };
    const list = await request("/v1/calls", { env });
    expect(list.status).toBe(503);
    expect(list.headers.get("retry-after")).toBe("1");
    expect(await json(list)).toEqual({
      error: { code: "overloaded", message: "toolgate's storage is overloaded; try again in 1 s." },
    });
    expect(ledger.calls.map((c) => c.method)).toEqual(Array(shardCount(bindings)).fill("list"));

    const one = await request(`/v1/calls/some-${uid()}`, { env });
    expect([one.status, one.headers.get("retry-after"), (await json(one)).error.code]).toEqual([
      503,
      "1",
      "overloaded",
    ]);
    const cancel = await request(`/v1/calls/some-${uid()}/cancel`, { env, body: {} });
    expect([cancel.status, (await json(cancel)).error.code]).toEqual([503, "overloaded"]);
    expect(ledger.calls.map((c) => c.method).slice(shardCount(bindings))).toEqual(["get", "cancel"]);
  });
});

describe("stub errors: the object's own code throws", () => {
  it("is not retried: a route answers JSON 500 naming the request id, a call gets an internal result and does not run", async () => {
    const t = countedTenant("fbug");
    await learnShardMap(t.env);
    const ledger = faultyNamespace(bindings.LEDGER, (method) => (method === "get" ? "bug" : undefined));
    const res = await request(`/v1/calls/some-${uid()}`, { env: { ...t.env, LEDGER: ledger.namespace } });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({
      error: { code: "internal", message: `Internal error (request ${res.headers.get("x-request-id")}).` },
    });
    expect(ledger.calls.map((c) => c.method)).toEqual(["get"]);

    const gates = faultyNamespace(bindings.GATES, (method) => (method === "acquire" ? "bug" : undefined));
    const id = `bug-${uid()}`;
    const { status, records } = await runPosts({ ...t.env, GATES: gates.namespace }, id);
    expect(status).toBe(200);
    expect(records[0]).toMatchObject({ status: "failed", error: { code: "internal" } });
    expect(gates.calls.filter((c) => c.method === "acquire")).toHaveLength(1);
    expect(await t.runs()).toBe(0);
    await expectOneTerminalRecordEach(t.env, [id]);
    await expectNoSlotHeld(t.env);
  });
});

describe("storage failing mid-transaction", () => {
  const firstAttemptOfEach = (n: number) => n % 2 === 1;

  it("in the gate: each transition that throws is rolled back and applied again on the state reloaded from SQLite", async () => {
    const t = countedTenant("ftxgate");
    const fault = await failTransactions(rawGate(t.gate), firstAttemptOfEach);
    const id = `txg-${uid()}`;
    const { records } = await runPosts(t.env, id);
    expect(records[0]).toMatchObject({ callId: id, status: "succeeded" });
    await eventually(async () => fault.runs() >= 4, "the acquire and the release were each tried twice");
    expect(fault.failures()).toBeGreaterThanOrEqual(2);
    await fault.restore();
    expect(await t.runs()).toBe(1);
    expect((await gateStub(t.gate).snapshot()).holders).toEqual([]); // released, not left to its lease
    await expectOneTerminalRecordEach(t.env, [id]);
    await expectNoSlotHeld(t.env);
  });

  it("in the ledger shard: the claim and the outcome are each rolled back once and applied again; the record ends terminal", async () => {
    const t = countedTenant("ftxledger");
    const id = `txl-${uid()}`;
    const fault = await failTransactions(rawShard(t.name, id), firstAttemptOfEach);
    const { records } = await runPosts(t.env, id);
    expect(records[0]).toMatchObject({ callId: id, status: "succeeded" });
    expect(fault.failures()).toBeGreaterThanOrEqual(2);
    await fault.restore();
    expect(await t.runs()).toBe(1);
    const stored = await expectOneTerminalRecordEach(t.env, [id]);
    expect(stored.get(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    await expectNoSlotHeld(t.env);
  });

  it("in the gate on every attempt: the call ends terminal (internal) without running; once the storage recovers the next call runs", async () => {
    const t = countedTenant("ftxdown");
    const fault = await failTransactions(rawGate(t.gate), () => true);
    const first = `txd1-${uid()}`;
    const failed = await runPosts(t.env, first);
    expect(failed.records[0]).toMatchObject({ status: "failed", error: { code: "internal" } });
    expect(await t.runs()).toBe(0);
    await fault.restore();

    const second = `txd2-${uid()}`;
    expect((await runPosts(t.env, second)).records[0]).toMatchObject({ status: "succeeded" });
    expect(await t.runs()).toBe(1);
    await expectOneTerminalRecordEach(t.env, [first, second]);
    await expectNoSlotHeld(t.env);
  });
});

describe("a gate alarm that throws", () => {
  it("is run again; once the storage recovers it frees the expired slot and the waiting call runs, once", async () => {
    const t = countedTenant("falarmx");
    const stub = gateStub(t.gate);
    // A Worker took the slot, then died: only the alarm (lease end) can free it for the waiter.
    const ghost = await stub.acquire({
      gate: t.gate,
      callId: "ghost",
      tool: "post_once",
      rules: { limit: 1, maxQueue: 8 },
      askedAt: Date.now(),
      leaseMs: 1_500,
      pollMs: 30_000,
      tenant: t.name,
    });
    expect(ghost.ok).toBe(true);
    const id = `ax-${uid()}`;
    const running = runPosts(t.env, id);
    // Waiting means its long poll is open at the gate: the first poll only lasts the quiet wait, and
    // a poll that arrived after the fault below would fail the call instead of waiting. A long poll's
    // deadline lies beyond what the quiet one's can.
    const inLongPoll = async () =>
      (await isPolling(t.gate, id)) &&
      ((await waiterDeadline(t.gate, id)) ?? 0) > Date.now() + QUIET_WAIT_MS + WAIT_GRACE_MS;
    await eventually(inLongPoll, "the call's long poll waits at the gate");

    // From now on every transaction of the gate fails, so the alarm at the lease's end throws.
    const fault = await failTransactions(rawGate(t.gate), () => true);
    await eventually(async () => fault.failures() >= 2, "the alarm ran and failed", 20_000);
    const rearmed = await runInDurableObject(rawGate(t.gate), (_i: unknown, state: DurableObjectState) =>
      state.storage.getAlarm(),
    );
    expect(rearmed, "a failed alarm leaves an alarm set").not.toBeNull();
    expect(await t.runs()).toBe(0);

    await fault.restore();
    await runDurableObjectAlarm(rawGate(t.gate)); // the re-armed alarm, now (it may also have run on its own)
    const { records } = await running;
    expect(records[0]).toMatchObject({ callId: id, status: "succeeded" });
    expect(await t.runs()).toBe(1);
    await expectOneTerminalRecordEach(t.env, [id]);
    await expectNoSlotHeld(t.env);
  }, 40_000);
});
