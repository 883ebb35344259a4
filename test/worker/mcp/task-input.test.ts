import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { tenantRunners } from "../../../worker/runner/address";
import { eventually } from "../../wait";
import { faultTenant } from "../helpers/faults";
import { json, request } from "../helpers/requests";
import { modernPost, type McpTarget } from "../helpers/mcp";

/**
 * MCP tasks that wait for their caller's input (io.modelcontextprotocol/tasks, 2026-07-28): a task's
 * run asks (ctx.ask, approval: "user"), the task is input_required with its inputRequests, the client
 * answers with tasks/update, and the Runner runs the tool again with every answer. Each request is a
 * separate POST, as a client on another isolate (or one that went away and came back) sends it.
 */

const TASKS = "io.modelcontextprotocol/tasks";
const askable = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } } };

function tenant(prefix: string, patch: Record<string, unknown> = {}) {
  const { name, env } = faultTenant(prefix, { tools: ["confirm_delete", "multi_input", "slow_compute"], ...patch });
  return { name, env, target: { vars: env as Record<string, string> } as McpTarget };
}

async function rpc(
  target: McpTarget,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = askable,
) {
  const name =
    typeof params.taskId === "string" ? params.taskId : typeof params.name === "string" ? params.name : undefined;
  const res = await modernPost(method, params, {
    target,
    meta,
    headers: name === undefined ? {} : { "mcp-name": name },
  });
  return (await res.json()) as any;
}

const startTask = async (
  target: McpTarget,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => {
  const created = (await rpc(target, "tools/call", { name, arguments: args }, meta)).result;
  expect(created).toMatchObject({ resultType: "task", taskId: expect.any(String) });
  return created.taskId as string;
};
const getTask = async (target: McpTarget, taskId: string) => (await rpc(target, "tasks/get", { taskId })).result;
const update = async (target: McpTarget, taskId: string, inputResponses: Record<string, unknown>) =>
  (await rpc(target, "tasks/update", { taskId, inputResponses })).result;

async function untilStatus(target: McpTarget, taskId: string, status: string): Promise<any> {
  let last: any;
  await eventually(async () => (last = await getTask(target, taskId)).status === status, `the task is ${status}`);
  return last;
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
const runnerOf = (tenantName: string, callId: string) =>
  tenantRunners(bindings, tenantName).for(callId) as unknown as DurableObjectStub;
const shardOf = (tenantName: string, callId: string) =>
  tenantLedger(bindings, tenantName).for(callId) as unknown as DurableObjectStub;
const sqlOf = <T>(stub: DurableObjectStub, query: string, ...bind: unknown[]) =>
  runInDurableObject(stub, (_instance, state) => state.storage.sql.exec(query, ...bind).toArray() as T[]);

describe("MCP tasks waiting for their caller's input", () => {
  it("a task whose tool asks is input_required with its question; answered by tasks/update after both objects were evicted, it runs again with the answer and completes", async () => {
    const { name, env, target } = tenant("tin");
    const taskId = await startTask(target, "confirm_delete", { filename: "a.txt" });
    const waiting = await untilStatus(target, taskId, "input_required");
    expect(waiting.inputRequests).toEqual({
      confirm_delete: {
        method: "elicitation/create",
        params: { message: "Delete a.txt?", requestedSchema: expect.objectContaining({ type: "object" }) },
      },
    });
    expect(waiting.statusMessage).toContain("tasks/update");
    // The HTTP API tells the same: the call waits for its caller, with the open questions.
    const record = (await json(await request(`/v1/calls/${taskId}`, { env }))).record;
    expect(record).toMatchObject({
      status: "awaiting_input",
      error: { code: "input_required", inputRequests: { confirm_delete: expect.any(Object) } },
    });

    // An answer to a question the task does not have is ignored (acknowledged, nothing moves).
    expect(await update(target, taskId, { "unknown-key": { ignored: true } })).toEqual({
      resultType: "complete",
      _meta: expect.any(Object),
    });
    expect((await getTask(target, taskId)).status).toBe("input_required");

    // Only storage survives: the Runner holding the job and the shard holding the record restart.
    await evictDurableObject(shardOf(name, taskId));
    await evictDurableObject(runnerOf(name, taskId));
    const ack = await update(target, taskId, { confirm_delete: accept({ confirm: true }) });
    expect(Object.keys(ack).sort()).toEqual(["_meta", "resultType"]);
    const done = await untilStatus(target, taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "Deleted a.txt." }] });
    expect(done.inputRequests).toBeUndefined();
    const entry = await json(await request(`/v1/calls/${taskId}`, { env }));
    expect(entry.record).toMatchObject({ status: "succeeded", attempts: 1 });
    // The Runner's re-claim ran the call again (a later startedAt); the task was still created
    // when it was first accepted.
    expect(entry.record.startedAt).toBeGreaterThan(Date.parse(waiting.createdAt));
    expect(done.createdAt).toBe(waiting.createdAt);
    expect(entry.createdAt).toBe(Date.parse(waiting.createdAt));
    // The answers were kept only while the call waited; the Runner keeps nothing once the call is over.
    expect(
      await sqlOf(shardOf(name, taskId), "SELECT call_id FROM blobs WHERE call_id = ? AND kind = 'answers'", taskId),
    ).toEqual([]);
    expect(await sqlOf(runnerOf(name, taskId), "SELECT id FROM job")).toEqual([]);
    // Answering a task that no longer waits is acknowledged and changes nothing.
    expect((await update(target, taskId, { confirm_delete: accept({ confirm: false }) })).resultType).toBe("complete");
    expect((await getTask(target, taskId)).result.content[0].text).toBe("Deleted a.txt.");
  });

  it("two questions asked together: answering one leaves the other open; answering both runs the tool with every answer", async () => {
    const { target } = tenant("tmulti");
    const taskId = await startTask(target, "multi_input", {});
    const waiting = await untilStatus(target, taskId, "input_required");
    expect(Object.keys(waiting.inputRequests).sort()).toEqual(["first_input", "second_input"]);
    await update(target, taskId, { first_input: accept({ name: "one" }) });
    const partial = await getTask(target, taskId);
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests)).toEqual(["second_input"]);
    // A second answer to the answered key is ignored: the first one stands.
    await update(target, taskId, { first_input: accept({ name: "changed" }), second_input: accept({ name: "two" }) });
    const done = await untilStatus(target, taskId, "completed");
    expect(done.result.content[0].text).toBe('Answers: {"name":"one"}, {"name":"two"}');
  });

  it("answers are bounded; cancel while waiting ends the task cancelled at once, and its Runner lets go of the job", async () => {
    const { name, env, target } = tenant("tincancel");
    const taskId = await startTask(target, "confirm_delete", { filename: "b.txt" });
    await untilStatus(target, taskId, "input_required");
    // Answers are bounded (65 536 characters of JSON for all of a call's): a larger one is refused and nothing moves.
    const huge = await rpc(target, "tasks/update", {
      taskId,
      inputResponses: { confirm_delete: accept({ confirm: true, note: "x".repeat(70_000) }) },
    });
    expect(huge.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        new RegExp(
          String.raw`^tasks/update: The answers to this call would take 700\d\d characters of JSON, ` +
            String.raw`over the limit of 65536 characters for all of one call's answers\.$`,
        ),
      ),
    });
    expect((await getTask(target, taskId)).status).toBe("input_required");
    expect((await rpc(target, "tasks/cancel", { taskId })).result.resultType).toBe("complete");
    expect((await getTask(target, taskId)).status).toBe("cancelled");
    expect((await json(await request(`/v1/calls/${taskId}`, { env }))).record).toMatchObject({
      status: "cancelled",
      error: { code: "cancelled" },
    });
    // An answer after the cancel runs nothing.
    await update(target, taskId, { confirm_delete: accept({ confirm: true }) });
    expect((await getTask(target, taskId)).status).toBe("cancelled");
    expect(await sqlOf(runnerOf(name, taskId), "SELECT state FROM job")).toEqual([{ state: "asking" }]);
    expect(await runDurableObjectAlarm(runnerOf(name, taskId))).toBe(true);
    expect(await sqlOf(runnerOf(name, taskId), "SELECT id FROM job")).toEqual([]);
  });

  it("a wait has a deadline (LEDGER_INPUT_TTL_SECONDS, 1 h): past it the task ends timed out, saying what went unanswered", async () => {
    const { name, env, target } = tenant("tinttl");
    const asked = Date.now();
    const taskId = await startTask(target, "confirm_delete", { filename: "c.txt" });
    await untilStatus(target, taskId, "input_required");
    const shard = shardOf(name, taskId);
    const [row] = await sqlOf<{ deadline: number }>(shard, "SELECT deadline FROM calls WHERE call_id = ?", taskId);
    expect(row!.deadline).toBeGreaterThanOrEqual(asked + 3600_000);
    expect(row!.deadline).toBeLessThanOrEqual(Date.now() + 3600_000);
    // The hour passes (the row's deadline moved into the past); the shard's alarm ends the wait.
    await sqlOf(shard, "UPDATE calls SET deadline = ? WHERE call_id = ?", Date.now() - 1, taskId);
    await runDurableObjectAlarm(shard);
    const ended = await getTask(target, taskId);
    expect(ended.status).toBe("completed");
    expect(ended.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("Nobody answered") }],
    });
    expect((await json(await request(`/v1/calls/${taskId}`, { env }))).record).toMatchObject({
      status: "timed_out",
      error: { code: "timeout" },
    });
  });

  it('approval: "user" on a task is asked through the task: accepted, the tool runs; declined, the task ends denied', async () => {
    const { env, target } = tenant("tinappr", { policies: { slow_compute: { approval: "user" } } });
    const approved = await startTask(target, "slow_compute", { seconds: 0, label: "approved" });
    const waiting = await untilStatus(target, approved, "input_required");
    expect(waiting.inputRequests["toolgate.approval"]).toMatchObject({
      method: "elicitation/create",
      params: { message: expect.stringContaining("slow_compute") },
    });
    await update(target, approved, { "toolgate.approval": accept({ approve: true }) });
    expect((await untilStatus(target, approved, "completed")).result).toMatchObject({
      content: [{ text: "Computed approved after 0 s." }],
    });

    const declined = await startTask(target, "slow_compute", { seconds: 0, label: "declined" });
    await untilStatus(target, declined, "input_required");
    await update(target, declined, { "toolgate.approval": { action: "decline" } });
    const ended = await untilStatus(target, declined, "completed");
    expect(ended.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("did not approve") }],
    });
    expect((await json(await request(`/v1/calls/${declined}`, { env }))).record).toMatchObject({
      status: "denied",
      permission: "deny",
    });
  });

  it("the HTTP API answers too: POST /v1/calls/:id/input with the same keys moves the task on; keys not asked, or a call not waiting, are refused", async () => {
    const { env, target } = tenant("tinhttp");
    const taskId = await startTask(target, "multi_input", {});
    await untilStatus(target, taskId, "input_required");
    const answer = (inputResponses: Record<string, unknown>) =>
      request(`/v1/calls/${taskId}/input`, { env, body: { inputResponses } });
    const unknown = await answer({ third_input: accept({ name: "x" }) });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error).toMatchObject({
      code: "unknown_keys",
      message: expect.stringContaining("first_input, second_input"),
    });
    expect((await answer({ first_input: "not an object" })).status).toBe(400);
    const partial = await answer({ first_input: accept({ name: "one".repeat(13_000) }) });
    expect(partial.status).toBe(200);
    expect(await json(partial)).toMatchObject({
      state: "awaiting_input",
      call: { record: { error: { inputRequests: { second_input: expect.any(Object) } } } },
    });
    // The bound is on all of a call's answers: one that fits alone does not fit with those kept, and is not kept.
    const over = await answer({ second_input: accept({ name: "two".repeat(13_000) }) });
    expect(over.status).toBe(400);
    expect((await json(over)).error).toMatchObject({
      code: "invalid_body",
      message: expect.stringMatching(
        /over the limit of 65536 characters for all of one call's answers; none of these answers was kept\.$/,
      ),
    });
    expect((await getTask(target, taskId)).inputRequests).toEqual({ second_input: expect.any(Object) });
    const resumed = await answer({ second_input: accept({ name: "two" }) });
    expect(resumed.status).toBe(202);
    expect(await json(resumed)).toMatchObject({ state: "resumed", call: { record: { status: "running" } } });
    expect((await untilStatus(target, taskId, "completed")).result.content[0].text).toBe(
      `Answers: {"name":"${"one".repeat(13_000)}"}, {"name":"two"}`,
    );
    const late = await answer({ second_input: accept({ name: "again" }) });
    expect(late.status).toBe(409);
    expect((await json(late)).error.code).toBe("not_awaiting_input");
    expect((await request(`/v1/calls/no-such-call/input`, { env, body: { inputResponses: {} } })).status).toBe(404);
  });

  it("a question the client did not declare it answers ends the task with an error naming it, instead of waiting for an answer that cannot come", async () => {
    const { target } = tenant("tinnocap");
    const tasksOnly = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };
    const taskId = await startTask(target, "confirm_delete", { filename: "d.txt" }, tasksOnly);
    const ended = await untilStatus(target, taskId, "completed");
    expect(ended.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("cannot be asked") }],
    });
  });
});
