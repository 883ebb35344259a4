import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { tenantRunners } from "../../../worker/runner/address";
import { eventually } from "../../wait";
import { uid } from "../helpers/adapters";
import { holdTool, latch } from "../helpers/hold";
import { faultTenant } from "../helpers/faults";
import { ADMIN_KEY, json, request } from "../helpers/requests";
import { modernPost, type McpTarget } from "../helpers/mcp";

/**
 * The MCP tasks extension on /mcp (2026-07-28): a task is the call's ledger record. Each request
 * below is a separate POST with nothing kept between them, as a client landing on another isolate
 * each time would send it; the eviction test restarts the objects that hold the task mid-run.
 */

const TASKS = "io.modelcontextprotocol/tasks";
const withTasks = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };

/** The task fixtures plus `hold`, a detached HTTP tool that waits at the latch its `id` names. */
function tenant(prefix: string, patch: Record<string, unknown> = {}) {
  const { name, env } = faultTenant(prefix, {
    tools: ["greet", "slow_compute", "failing_job", "protocol_error_job"],
    http: [holdTool({ execution: "detached" })],
    ...patch,
  });
  return { name, env, target: { vars: env as Record<string, string> } as McpTarget };
}

type Target = McpTarget;

async function rpc(
  target: Target,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = withTasks,
) {
  const name =
    typeof params.taskId === "string" ? params.taskId : typeof params.name === "string" ? params.name : undefined;
  const res = await modernPost(method, params, {
    target,
    meta,
    headers: name === undefined ? {} : { "mcp-name": name },
  });
  return { status: res.status, body: (await res.json()) as any };
}

const call = async (target: Target, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  (await rpc(target, "tools/call", { name, arguments: args }, meta)).body;
const getTask = async (target: Target, taskId: string) => (await rpc(target, "tasks/get", { taskId })).body;

async function untilStatus(target: Target, taskId: string, status: string): Promise<any> {
  let last: any;
  await eventually(async () => {
    last = await getTask(target, taskId);
    return last.result?.status === status;
  }, `the task is ${status}`);
  return last.result;
}

const runnerOf = (tenantName: string, callId: string) =>
  tenantRunners(bindings, tenantName).for(callId) as unknown as DurableObjectStub;
const shardOf = (tenantName: string, callId: string) =>
  tenantLedger(bindings, tenantName).for(callId) as unknown as DurableObjectStub;

describe("MCP tasks (io.modelcontextprotocol/tasks) kept in the ledger", () => {
  it("is advertised by server/discover and shown per tool in tools/list", async () => {
    const { target } = tenant("tdisc");
    const discover = await rpc(target, "server/discover", {});
    expect(discover.body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    expect(discover.body.result.capabilities.tasks).toBeUndefined();
    const { tools } = (await rpc(target, "tools/list", {})).body.result;
    const support = Object.fromEntries(tools.map((t: any) => [t.name, t.execution?.taskSupport ?? "none"]));
    expect(support).toMatchObject({
      greet: "none",
      slow_compute: "optional",
      failing_job: "required",
      protocol_error_job: "optional",
      hold: "optional",
    });
  });

  it("a detached tool's call is a task: created durably, read from any request, its result inlined once completed; its record is the task", async () => {
    const { env, target } = tenant("tlife");
    const id = `l-${uid()}`;
    const created = await call(target, "hold", { id });
    expect(created.result).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 1000 });
    expect(Object.keys(created.result)).not.toContain("result");
    const taskId = created.result.taskId as string;
    expect(created.result.ttlMs).toBe(30 * 86_400_000); // the ledger's retention (LEDGER_RETENTION_DAYS)
    expect(new Date(created.result.createdAt).toISOString()).toBe(created.result.createdAt);
    // Readable at once: the task is the call's record, written before the answer.
    expect((await getTask(target, taskId)).result).toMatchObject({ resultType: "complete", taskId, status: "working" });
    const record = (await json(await request(`/v1/calls/${taskId}`, { env }))).record;
    expect(record).toMatchObject({ callId: taskId, tool: "hold", status: "running" });

    await eventually(async () => (await latch(id).arrivals()) === 1, "the run reaches the upstream");
    await latch(id).open();
    const done = await untilStatus(target, taskId, "completed");
    expect(done.result.structuredContent).toEqual({ id, n: 1 });
    expect(done.result._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
    expect((await json(await request(`/v1/calls/${taskId}`, { env }))).record.status).toBe("succeeded");
  });

  it("survives its objects: the ledger shard holding the task is evicted and the Runner running it dies mid-run; the task goes on and completes", async () => {
    const { name, target } = tenant("tevict");
    const id = `l-${uid()}`;
    const taskId = (await call(target, "hold", { id })).result.taskId as string;
    await eventually(async () => (await latch(id).arrivals()) === 1, "the run is under way");
    // Memory of both objects is gone; only their storage stays.
    await evictDurableObject(shardOf(name, taskId));
    await runInDurableObject(runnerOf(name, taskId), (_instance, state) => state.abort("a crash, for the test")).catch(
      () => undefined,
    );
    expect((await getTask(target, taskId)).result).toMatchObject({ taskId, status: "working" });
    // The platform retries the dead run's alarm; the watchdog alarm stands for it (the GET is
    // idempotent: it runs again).
    const rerun = runDurableObjectAlarm(runnerOf(name, taskId));
    await eventually(async () => (await latch(id).arrivals()) === 2, "the run begins again");
    await latch(id).open();
    expect(await rerun).toBe(true);
    const done = await untilStatus(target, taskId, "completed");
    expect(done.result.structuredContent).toEqual({ id, n: 2 });
  });

  it("tasks/cancel acknowledges with an empty result, the task ends cancelled, and a second cancel gets the same ack", async () => {
    const { env, target } = tenant("tcancel");
    const taskId = (await call(target, "slow_compute", { seconds: 60, label: "cancel" })).result.taskId as string;
    await eventually(async () => (await getTask(target, taskId)).result.status === "working", "the task runs");
    const ack = await rpc(target, "tasks/cancel", { taskId });
    expect(ack.body.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const ended = await untilStatus(target, taskId, "cancelled");
    expect(ended.result).toBeUndefined();
    expect((await json(await request(`/v1/calls/${taskId}`, { env }))).record.status).toBe("cancelled");
    expect((await rpc(target, "tasks/cancel", { taskId })).body.result.resultType).toBe("complete");
  });

  it("a tool error is a completed task with isError; an internal failure is a failed task with an error and no result", async () => {
    const { target } = tenant("terr");
    const failing = (await call(target, "failing_job", {})).result.taskId as string;
    const broken = (await call(target, "protocol_error_job", {})).result.taskId as string;
    const completed = await untilStatus(target, failing, "completed");
    expect(completed.result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("always does") }],
    });
    const failed = await untilStatus(target, broken, "failed");
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringContaining("always does") });
    expect(failed.result).toBeUndefined();
  });

  it("without the extension: task methods and task-only tools answer -32021, other task tools run to their result; unknown tasks are -32602", async () => {
    const { target } = tenant("tneg");
    const none = { "io.modelcontextprotocol/clientCapabilities": {} };
    const required = await rpc(target, "tools/call", { name: "failing_job", arguments: {} }, none);
    expect(required.status).toBe(400);
    expect(required.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    for (const method of ["tasks/get", "tasks/cancel"]) {
      expect((await rpc(target, method, { taskId: "t" }, none)).body.error.code).toBe(-32021);
    }
    const sync = (await call(target, "slow_compute", { seconds: 0 }, none)).result;
    expect(sync).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: expect.stringContaining("Computed") }],
    });
    expect(sync.taskId).toBeUndefined();
    expect((await call(target, "greet", { name: "World" })).result).toMatchObject({
      resultType: "complete",
      content: [{ text: "Hello, World!" }],
    });
    expect((await rpc(target, "tasks/get", { taskId: "no-such-task" })).body.error.code).toBe(-32602);
    expect((await rpc(target, "tasks/cancel", { taskId: "no-such-task" })).body.error.code).toBe(-32602);
    expect((await rpc(target, "tasks/update", { taskId: "no-such-task", inputResponses: {} })).body.error.code).toBe(
      -32602,
    );
    for (const method of ["tasks/result", "tasks/list"])
      expect((await rpc(target, method, {})).body.error.code).toBe(-32601);
  });

  it("tasks/get's Mcp-Name must name the task (-32020)", async () => {
    const { target } = tenant("thdr");
    const taskId = (await call(target, "slow_compute", { seconds: 0 })).result.taskId as string;
    const res = await modernPost(
      "tasks/get",
      { taskId },
      { target, meta: withTasks, headers: { "mcp-name": "another" } },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32020);
  });

  it("a call parked for approval is a task waiting for input; an admin's approval moves it on to its result", async () => {
    const { env, target } = tenant("tappr", { requireApprovalFor: { tools: ["hold"] } });
    const id = `l-${uid()}`;
    const created = (await call(target, "hold", { id })).result;
    expect(created).toMatchObject({ resultType: "task", status: "input_required" });
    const taskId = created.taskId as string;
    expect((await getTask(target, taskId)).result).toMatchObject({
      status: "input_required",
      statusMessage: expect.stringContaining("approval"),
    });
    // The caller's answers cannot approve it: acknowledged, and the task still waits for the admin.
    const update = await rpc(target, "tasks/update", {
      taskId,
      inputResponses: { approve: { action: "accept", content: {} } },
    });
    expect(update.body.result).toMatchObject({ resultType: "complete" });
    expect((await getTask(target, taskId)).result.status).toBe("input_required");
    expect(
      (await request(`/v1/approvals/${taskId}`, { env, key: ADMIN_KEY, body: { decision: "approve" } })).status,
    ).toBe(202);
    await eventually(async () => (await latch(id).arrivals()) === 1, "the approved call runs");
    expect((await getTask(target, taskId)).result.status).toBe("working");
    await latch(id).open();
    expect((await untilStatus(target, taskId, "completed")).result.structuredContent).toEqual({ id, n: 1 });
  });
});
