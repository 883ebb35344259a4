import { runDurableObjectAlarm } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { tenantRunners } from "../../../worker/runner/address";
import { uid } from "../helpers/adapters";
import { faultTenant } from "../helpers/faults";
import { eventually } from "../../wait";
import { connect, type McpTarget } from "../helpers/mcp";
import { holdTool, latch } from "../helpers/hold";
import { tune } from "../helpers/ledger";
import { ADMIN_KEY, BASE, json, request, untilApprovalDue } from "../helpers/requests";

/**
 * A code run whose program reaches a call that waits for approval waits for it, held by its Runner
 * object, and runs again from the start once the call is decided (docs/code-mode.md): in workerd, with
 * real Durable Objects and the Worker Loader. `hold` (an HTTP tool at a loopback latch, opened before
 * the run) counts how often its call reached the upstream; `echo` always needs approval.
 */

/** A fresh tenant in code mode over add, echo (approval required) and hold. */
function waitingTenant() {
  return faultTenant("codewait", {
    tools: ["add", "echo"],
    http: [holdTool({})],
    requireApprovalFor: { tools: ["echo"] },
    codeMode: {},
  });
}

interface Entry {
  record: {
    callId: string;
    status: string;
    parent?: string;
    progress?: { message?: string };
    output?: { structured?: any };
    error?: { code: string; message: string };
  };
}

/** One code run through POST /v1/calls/openai: the run's id and its answer. */
async function runCode(env: Record<string, unknown>, code: string, id = `run-${uid()}`) {
  const body = {
    tool_calls: [{ id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } }],
  };
  const answer = await json(await request("/v1/calls/openai", { body, env }));
  return { id, answer: answer.calls[0] as Entry["record"] };
}

const entryOf = async (env: Record<string, unknown>, id: string, wait = 0): Promise<Entry> =>
  json(await request(`/v1/calls/${id}${wait ? `?wait=${wait}` : ""}`, { env, key: ADMIN_KEY }));

const decide = (env: Record<string, unknown>, id: string, decision: "approve" | "deny") =>
  request(`/v1/approvals/${id}`, { env, key: ADMIN_KEY, body: { decision } });

const runnerOf = (tenant: string, callId: string) =>
  tenantRunners(bindings, tenant).for(callId) as unknown as DurableObjectStub;

/** The run, answered as running: its record says which call it waits for. */
async function expectWaiting(
  env: Record<string, unknown>,
  run: { id: string; answer: Entry["record"] },
  child: string,
) {
  expect(run.answer.status, JSON.stringify(run.answer)).toBe("running");
  expect(run.answer.error?.code).toBe("running");
  expect(run.answer.error?.message).toContain(`waits for the approval of its call ${child}`);
  await expectRecordWaiting(env, run.id, child);
}

/** The run's record is running, its progress naming the call (pending, the run its parent) it waits for. */
async function expectRecordWaiting(env: Record<string, unknown>, runId: string, child: string) {
  const entry = await entryOf(env, runId);
  expect(entry.record.status).toBe("running");
  expect(entry.record.progress?.message).toBe(`Waits for the approval of its call ${child} ("echo").`);
  expect((await entryOf(env, child)).record).toMatchObject({ status: "pending", parent: runId });
}

describe("code mode: a call waiting for approval", () => {
  it("holds the run; approving runs it again from the start, each earlier call answered from its record", async () => {
    const { name, env } = waitingTenant();
    const gate = `cw-${uid()}`;
    await latch(gate).open();
    const run = await runCode(
      env,
      `const held = await tools.hold({ id: "${gate}" });\n` +
        "const sum = await tools.add({ a: 1, b: 2 });\n" +
        "const said = await tools.echo({ text: 'sum ' + sum.sum });\n" +
        "return { held: held.n, said };",
    );
    await expectWaiting(env, run, `${run.id}.3`);
    expect(await latch(gate).arrivals()).toBe(1);

    expect((await decide(env, `${run.id}.3`, "approve")).status).toBe(202);
    const done = await entryOf(env, run.id, 20);
    expect(done.record.status, JSON.stringify(done.record)).toBe("succeeded");
    const output = done.record.output!.structured;
    expect(output.result).toEqual({ held: 1, said: "sum 3" });
    expect(output.calls.map((call: { callId: string }) => call.callId)).toEqual([1, 2, 3].map((n) => `${run.id}.${n}`));
    // The held call reached its upstream once: the run's second pass took its recorded answer.
    expect(await latch(gate).arrivals()).toBe(1);
    for (const child of output.calls) {
      const entry = await entryOf(env, child.callId);
      expect(entry.record).toMatchObject({ status: "succeeded", parent: run.id });
    }
    // A second look (a repeated wake, an alarm run again) finds nothing left to run.
    expect(await runDurableObjectAlarm(runnerOf(name, run.id))).toBe(false);
    expect((await decide(env, `${run.id}.3`, "approve")).status).toBe(409);
    expect((await entryOf(env, run.id)).record.status).toBe("succeeded");
  });

  it("denying throws the denial in the program, which may catch it", async () => {
    const { env } = waitingTenant();
    const run = await runCode(
      env,
      "try { await tools.echo({ text: 'x' }); return 'sent'; }\ncatch (e) { return { code: e.code, id: e.callId }; }",
    );
    await expectWaiting(env, run, `${run.id}.1`);
    expect((await decide(env, `${run.id}.1`, "deny")).status).toBe(200);
    const done = await entryOf(env, run.id, 20);
    expect(done.record.status, JSON.stringify(done.record)).toBe("succeeded");
    expect(done.record.output!.structured.result).toEqual({ code: "denied", id: `${run.id}.1` });
  });

  it("an approval that expires ends the run with its denial", async () => {
    const { name, env } = waitingTenant();
    const id = `run-${uid()}`;
    const child = `${id}.1`;
    const shard = (await tenantLedger(bindings, name).place(child)).stub() as unknown as DurableObjectStub;
    await tune(shard, { approvalTtlMs: 30 });
    const run = await runCode(env, "await tools.echo({ text: 'late' });\nreturn 'sent';", id);
    expect(run.answer.status, JSON.stringify(run.answer)).toBe("running");
    await untilApprovalDue(child, env);
    // Only the shard's alarm expires approvals; it may already have run on its own: either way, once.
    await runDurableObjectAlarm(shard);
    expect((await entryOf(env, child)).record.status).toBe("denied");
    // Nothing tells the run of an expiry: its Runner's next look finds it.
    await runDurableObjectAlarm(runnerOf(name, id));
    const done = await entryOf(env, id, 20);
    expect(done.record.status).toBe("failed");
    expect(done.record.error?.message).toMatch(/^ToolCallError \(line 1\): Nobody approved the call to "echo" in time/);
  });

  it("a run that reaches a second call needing approval waits again; wakes from many places resume it once", async () => {
    const { name, env } = waitingTenant();
    const gate = `cw-${uid()}`;
    await latch(gate).open();
    const run = await runCode(
      env,
      `await tools.hold({ id: "${gate}" });\n` +
        "const one = await tools.echo({ text: 'one' });\nconst two = await tools.echo({ text: 'two' });\n" +
        "return [one, two];",
    );
    await expectWaiting(env, run, `${run.id}.2`);
    expect((await decide(env, `${run.id}.2`, "approve")).status).toBe(202);
    // The approved call's end wakes the run; so do these, from this isolate, at once.
    const runner = () => tenantRunners(bindings, name).for(run.id);
    await Promise.all([1, 2, 3].map(() => runner().wake()));
    await eventually(
      async () => (await entryOf(env, run.id)).record.progress?.message?.includes(`${run.id}.3`) === true,
      "the run waits for its second call",
    );
    await expectRecordWaiting(env, run.id, `${run.id}.3`);
    expect((await decide(env, `${run.id}.3`, "approve")).status).toBe(202);
    await Promise.all([1, 2, 3].map(() => runner().wake()));
    const done = await entryOf(env, run.id, 20);
    expect(done.record.status, JSON.stringify(done.record)).toBe("succeeded");
    expect(done.record.output!.structured.result).toEqual(["one", "two"]);
    expect(await latch(gate).arrivals()).toBe(1);
  });

  it("cancelling the run cancels it and the call it waits for", async () => {
    const { env } = waitingTenant();
    const run = await runCode(env, "await tools.echo({ text: 'never' });\nreturn 'sent';");
    await expectWaiting(env, run, `${run.id}.1`);
    const cancel = await request(`/v1/calls/${run.id}/cancel`, { env, key: ADMIN_KEY, body: {} });
    expect(cancel.status).toBe(202);
    const done = await entryOf(env, run.id, 20);
    expect(done.record).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
    expect((await entryOf(env, `${run.id}.1`)).record).toMatchObject({ status: "cancelled", parent: run.id });
    expect((await decide(env, `${run.id}.1`, "approve")).status).toBe(409);
  });

  it("a program that makes other calls when run again ends with a clear error, not a wrong call", async () => {
    const { env } = waitingTenant();
    const run = await runCode(
      env,
      "const sum = await tools.add({ a: Math.random(), b: 1 });\nawait tools.echo({ text: 'x' });\nreturn sum;",
    );
    await expectWaiting(env, run, `${run.id}.2`);
    expect((await decide(env, `${run.id}.2`, "approve")).status).toBe(202);
    const done = await entryOf(env, run.id, 20);
    expect(done.record.status).toBe("failed");
    expect(done.record.error?.message).toMatch(
      /^The program is not deterministic: run again after an approval, its call 1 was add with other arguments/,
    );
  });

  it("over MCP (the official SDK client), tools/call follows the run to its outcome after the approval", async () => {
    const { env } = waitingTenant();
    const { client } = await connect({ vars: env as Record<string, string> } as McpTarget);
    const answered = client.callTool({
      name: "run_code",
      arguments: { code: "const said = await tools.echo({ text: 'over mcp' });\nreturn { said };" },
    });
    let child: { callId: string; parent?: string } | undefined;
    await eventually(async () => {
      const { calls } = await json(await request("/v1/calls?tool=echo", { env, key: ADMIN_KEY }));
      child = calls.map((entry: Entry) => entry.record).find((record: Entry["record"]) => record.status === "pending");
      return child !== undefined;
    }, "the program's call waits for approval");
    expect((await entryOf(env, child!.parent!)).record.status).toBe("running");
    expect((await decide(env, child!.callId, "approve")).status).toBe(202);
    const result = await answered;
    await client.close();
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { result: unknown }).result).toEqual({ said: "over mcp" });
  });

  it("runs again with the API it had: a program at an endpoint reaches no tool outside it after the approval", async () => {
    const { env } = faultTenant("codewait", {
      tools: ["add", "echo"],
      http: [holdTool({})],
      requireApprovalFor: { tools: ["echo"] },
      codeMode: {},
      endpoints: { said: { tools: ["echo"], codeMode: "on" } },
    });
    const { client } = await connect({ vars: env as Record<string, string>, url: `${BASE}/mcp/said` } as McpTarget);
    const answered = client.callTool({
      name: "run_code",
      arguments: { code: "await tools.echo({ text: 'first' });\nreturn await tools.add({ a: 1, b: 2 });" },
    });
    let child: { callId: string } | undefined;
    await eventually(async () => {
      const { calls } = await json(await request("/v1/calls?tool=echo", { env, key: ADMIN_KEY }));
      child = calls.map((entry: Entry) => entry.record).find((record: Entry["record"]) => record.status === "pending");
      return child !== undefined;
    }, "the program's call waits for approval");
    expect((await decide(env, child!.callId, "approve")).status).toBe(202);
    const result = await answered;
    await client.close();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/TypeError \(line 2\): tools\.add is not a function/);
  });

  it("runs again within the caller's rate limit: calls past it after the approval are refused busy", async () => {
    const { env } = waitingTenant();
    const made = await request("/v1/keys", {
      env,
      key: ADMIN_KEY,
      body: { name: "limited", scopes: ["call"], ratePerMinute: 3 },
    });
    expect(made.status).toBe(201);
    const { secret } = await json(made);
    const id = `run-${uid()}`;
    const code =
      "await tools.echo({ text: 'x' });\nconst sums = [];\n" +
      "for (let i = 0; i < 4; i++) sums.push((await tools.add({ a: i, b: 1 })).sum);\nreturn sums;";
    const body = {
      tool_calls: [{ id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code }) } }],
    };
    const answer = (await json(await request("/v1/calls/openai", { body, env, key: secret }))).calls[0];
    expect(answer.status, JSON.stringify(answer)).toBe("running");
    // The run and its echo took two of the key's three calls this minute; one add is left.
    expect((await decide(env, `${id}.1`, "approve")).status).toBe(202);
    const done = await entryOf(env, id, 20);
    expect(done.record.status, JSON.stringify(done.record)).toBe("failed");
    expect(done.record.error?.message).toMatch(/^ToolCallError \(line 3\): Rate limit of 3 calls per minute/);
  });
});
