import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { tenantRunners } from "../../../worker/runner/address";
import { callTools, uid } from "../helpers/adapters";
import { eventually } from "../../wait";
import { expectNoSlotHeld, expectOneTerminalRecordEach, faultTenant } from "../helpers/faults";
import { ADMIN_KEY, json, request } from "../helpers/requests";
import { holdTool, latch } from "../helpers/hold";
import { openSse } from "../helpers/sse";

/**
 * Calls that outlive their request, in workerd with real Durable Objects: a detached call runs in its
 * own Runner object. Its tool waits at a latch upstream (test/servers/latch.ts) for as long as the test
 * needs, so "a call that runs longer than its request" is a call held open until the test says, never
 * a timer: a real minute is compressed to "the request has ended and the call still runs".
 */

/** A tenant with an HTTP tool `hold` that waits at the latch named by its `id` argument, with this policy. */
function holdTenant(prefix: string, policy: Record<string, unknown>, patch: Record<string, unknown> = {}) {
  return faultTenant(prefix, { tools: ["add"], http: [holdTool(policy)], ...patch });
}

const record = async (env: Record<string, unknown>, id: string, wait = 0) =>
  (await json(await request(`/v1/calls/${id}${wait ? `?wait=${wait}` : ""}`, { env, key: ADMIN_KEY }))).record;

const runnerOf = (tenant: string, callId: string) =>
  tenantRunners(bindings, tenant).for(callId) as unknown as DurableObjectStub;

/**
 * The object dies mid-run, as on an eviction or a deploy: ctx.abort() resets it at once, cutting its
 * alarm handler and the upstream request in flight. Storage stays; memory is gone.
 */
async function crash(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_instance, state) => state.abort("a crash, for the test")).catch(() => undefined);
}

describe("execution: detached", () => {
  it("answers at once with the running record; the call runs on after its request ended and its outcome is retrievable", async () => {
    const { name, env } = holdTenant("det", { execution: "detached" });
    const id = `l-${uid()}`;
    const { ids, messages, records } = await callTools(env, ["hold", { id }]);
    // The request is over: its answer says the call runs, with the record as it stands.
    expect(records[0]).toMatchObject({ callId: ids[0], status: "running", error: { code: "running" } });
    expect(messages[0]!.content).toMatch(/runs on, detached from this request/);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the detached run reaches the upstream");
    expect((await record(env, ids[0]!)).status).toBe("running");

    await latch(id).open();
    const done = await record(env, ids[0]!, 10);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(done.output.structured).toEqual({ id, n: 1 });
    expect(await latch(id).arrivals()).toBe(1);
    await expectOneTerminalRecordEach(env, ids);
    expect(name).toContain("det-");
  });

  it("logs the line of a call its Runner ended: one, with the outcome, naming the Runner", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { env } = holdTenant("detlog", { execution: "detached" });
    const id = `l-${uid()}`;
    const { ids } = await callTools(env, ["hold", { id }]);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the detached run reaches the upstream");
    await latch(id).open();
    expect((await record(env, ids[0]!, 10)).status).toBe("succeeded");
    const lines = log.mock.calls
      .map((args) => args.join(" "))
      .filter((line) => line.includes('"msg":"call"') && line.includes(ids[0]!))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The request's line says it runs on; the Runner's, how it ended.
    expect(lines).toEqual([
      expect.objectContaining({ callId: ids[0], status: "running" }),
      expect.objectContaining({ requestId: "runner", callId: ids[0], tool: "hold", status: "succeeded", attempts: 1 }),
    ]);
    log.mockRestore();
  });

  it("a cancel reaches the detached run: its upstream request is aborted, the record ends cancelled, its gate slot is freed", async () => {
    const { env } = holdTenant("detc", { execution: "detached", concurrency: { limit: 1 } });
    const id = `l-${uid()}`;
    const { ids } = await callTools(env, ["hold", { id }]);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the run holds the gate's slot at the upstream");
    const gates = await json(await request("/v1/gates", { env, key: ADMIN_KEY }));
    expect(gates.gates[0].holders.map((h: { callId: string }) => h.callId)).toEqual([ids[0]]);

    const cancel = await request(`/v1/calls/${ids[0]}/cancel`, { env, body: {}, key: ADMIN_KEY });
    expect(cancel.status).toBe(202);
    const done = await record(env, ids[0]!, 10);
    expect(done.status).toBe("cancelled");
    await eventually(async () => {
      const { gates: now } = await json(await request("/v1/gates", { env, key: ADMIN_KEY }));
      return now.every((g: { holders: unknown[] }) => g.holders.length === 0);
    }, "the slot is released");
    await expectNoSlotHeld(env);
    await latch(id).open();
  });

  it("a run whose object dies mid-run runs again once for an idempotent tool", async () => {
    const { name, env } = holdTenant("deti", { execution: "detached" }); // GET: idempotent
    const id = `l-${uid()}`;
    const { ids } = await callTools(env, ["hold", { id }]);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the first run is under way");
    await crash(runnerOf(name, ids[0]!));
    // The platform retries an alarm whose handler died; the watchdog alarm stands for it here. It
    // runs the call again, which waits at the latch: not awaited until the latch opens.
    const rerun = runDurableObjectAlarm(runnerOf(name, ids[0]!));
    await eventually(async () => (await latch(id).arrivals()) === 2, "the run begins again");
    await latch(id).open();
    expect(await rerun).toBe(true);
    const done = await record(env, ids[0]!, 10);
    expect(done).toMatchObject({ status: "succeeded" });
    expect(await latch(id).arrivals()).toBe(2);
    await expectOneTerminalRecordEach(env, ids);
  });

  it("a run whose object dies mid-run ends unknown for a tool that is not idempotent, and is never run twice", async () => {
    const { name, env } = holdTenant("detn", { execution: "detached", idempotent: false });
    const id = `l-${uid()}`;
    const { ids } = await callTools(env, ["hold", { id }]);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the run is under way");
    await crash(runnerOf(name, ids[0]!));
    await runDurableObjectAlarm(runnerOf(name, ids[0]!));
    const done = await record(env, ids[0]!, 10);
    expect(done.status).toBe("unknown");
    expect(done.error.message).toMatch(/interrupted.*not idempotent/);
    await latch(id).open();
    expect(await latch(id).arrivals()).toBe(1);
    await expectOneTerminalRecordEach(env, ids);
  });

  it("an approved call runs detached: the approval answers while the call still runs, and it ends after", async () => {
    const { env } = holdTenant("deta", {}, { requireApprovalFor: { tools: ["hold"] } });
    const id = `l-${uid()}`;
    const { ids, records } = await callTools(env, ["hold", { id }]);
    expect(records[0].status).toBe("pending");
    const approve = await request(`/v1/approvals/${ids[0]}`, { env, key: ADMIN_KEY, body: { decision: "approve" } });
    expect(approve.status).toBe(202);
    // The admin's request is over; the call waits at the upstream, in its Runner object.
    await eventually(async () => (await latch(id).arrivals()) === 1, "the approved call runs");
    expect((await record(env, ids[0]!)).status).toBe("running");
    await latch(id).open();
    expect(await record(env, ids[0]!, 10)).toMatchObject({ status: "succeeded", permission: "allow" });
  });
});

describe("execution: auto", () => {
  it("answers a call that ends in time with its result, and one still running after detachAfterMs as running; that one goes on", async () => {
    const { env } = holdTenant("auto", { execution: "auto", detachAfterMs: 300 });
    const fast = `l-${uid()}`;
    await latch(fast).open();
    const quick = await callTools(env, ["hold", { id: fast }]);
    expect(quick.records[0]).toMatchObject({ status: "succeeded", output: { structured: { id: fast, n: 1 } } });

    const slow = `l-${uid()}`;
    const started = Date.now();
    const { ids, records } = await callTools(env, ["hold", { id: slow }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(records[0]).toMatchObject({ status: "running", error: { code: "running" } });
    await latch(slow).open();
    expect(await record(env, ids[0]!, 10)).toMatchObject({
      status: "succeeded",
      output: { structured: { id: slow, n: 1 } },
    });
  });
});

describe("progress", () => {
  it("reaches the event stream (call.progress) and the record keeps the latest", async () => {
    const sse = await openSse(await request("/v1/events", { key: ADMIN_KEY }));
    await sse.ready();
    const res = await request("/v1/calls/openai", {
      body: [{ id: `p-${uid()}`, type: "function", function: { name: "slow_report", arguments: '{"seconds":1}' } }],
    });
    const { calls } = await json(res);
    const id = calls[0].callId;
    expect(calls[0].status).toBe("running");
    const done = await record({}, id, 10);
    expect(done).toMatchObject({ status: "succeeded", progress: { progress: 1, total: 1, message: "done" } });
    expect(done.output.structured.seconds).toBe(1);
    const frames = await sse.until((fs) => fs.some((f) => f.event === "call.finished" && f.data.callId === id));
    const progress = frames
      .filter((f) => f.event === "call.progress" && f.data.callId === id)
      .map((f) => f.data.progress.progress);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });
});
