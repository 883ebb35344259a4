import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeCall, executeCallNow } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import type { CallEvent } from "../../../src/events";
import type { Hooks } from "../../../src/hooks";
import type { CallJournal } from "../../../src/journal";
import type { ExecuteOptions } from "../../../src/options";
import type { CallRecord, CallResult } from "../../../src/result";
import { add, boom, echo } from "../fixtures";

const SECRET = "sk-live-4f9a8b7c6d5e";
const leak = defineTool({
  name: "leak",
  description: "",
  input: v.object({}),
  run: (_args, ctx) => `the key is ${ctx.secrets.KEY}`,
});
const registry = createRegistry([add, echo, boom, leak]);
const call = (name: string, args: unknown, id = "call_1") => ({ id, name, arguments: args });

/** Everything a call tells its observers, in order, and the options that report to it. */
function observed(extra: Partial<ExecuteOptions> = {}): { options: ExecuteOptions; heard: unknown[] } {
  const heard: unknown[] = [];
  const hooks: Hooks = {
    onEvent: (event: CallEvent) => heard.push(["event", event]),
    onStart: (event) => heard.push(["start", event]),
    onResult: (record: CallRecord) => heard.push(["result", record]),
  };
  // A fixed clock: the two entries' records must be equal to the millisecond.
  return { options: { registry, tenant: "acme", now: () => 1_700_000_000_000, hooks, ...extra }, heard };
}

/**
 * The call through executeCallNow (which must answer synchronously, observers having heard everything
 * by then) and through executeCall, each with fresh options: results and what observers heard are equal.
 */
async function sameBothWays(
  made: ReturnType<typeof call>,
  extra: Partial<ExecuteOptions> = {},
): Promise<{ result: CallResult; heard: unknown[] }> {
  const now = observed(extra);
  const result = executeCallNow(made, now.options);
  if (result instanceof Promise) throw new Error("executeCallNow answered a promise for a synchronous call");
  const heardThen = [...now.heard];
  const later = observed(extra);
  expect(await executeCall(made, later.options)).toEqual(result);
  expect(later.heard).toEqual(heardThen);
  expect(now.heard).toEqual(heardThen);
  return { result, heard: heardThen };
}

describe("executeCallNow: a call that ends synchronously answers its result, as executeCall would", () => {
  it("success: the output, the record, and the events (started, finished) and onResult before it returns", async () => {
    const { result, heard } = await sameBothWays(call("add", '{"a":2,"b":3}'));
    expect(result.ok && result.output).toEqual({
      content: [{ type: "text", text: '{"sum":5}' }],
      structured: { sum: 5 },
    });
    expect(result.record).toMatchObject({
      callId: "call_1",
      tenant: "acme",
      tool: "add",
      status: "succeeded",
      attempts: 1,
      permission: "allow",
    });
    expect(heard.map(([kind, what]: any) => (kind === "result" ? kind : `${kind}:${what.type}`))).toEqual([
      "event:call.started",
      "start:call.started",
      "event:attempt.finished",
      "result",
      "event:call.finished",
    ]);
  });

  it("invalid arguments: rejected before the tool runs, with the issue's path", async () => {
    let runs = 0;
    const counted = defineTool({
      name: "counted",
      description: "",
      input: v.object({ n: v.number() }),
      run: ({ n }) => (runs++, n),
    });
    const { result } = await sameBothWays(call("counted", '{"n":"7"}'), { registry: createRegistry([counted]) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_arguments");
    expect(result.error.issues?.[0]?.path).toBe("n");
    expect(result.record).toMatchObject({ status: "rejected", validation: { ok: false } });
    expect(runs).toBe(0);
  });

  it("a tool that throws: tool_error with its message, as a result", async () => {
    const { result } = await sameBothWays(call("boom", "{}"));
    expect(!result.ok && result.error).toMatchObject({ code: "tool_error", message: 'Tool "boom" failed: kaput' });
    expect(result.record.status).toBe("failed");
  });

  it("masks secrets in the result, the record and what observers hear", async () => {
    const { result, heard } = await sameBothWays(call("leak", "{}"), { secrets: { KEY: SECRET } });
    expect(result.ok && result.output.content).toEqual([{ type: "text", text: "the key is [redacted]" }]);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(heard)).not.toContain(SECRET);
  });

  it("hooks that answer at once keep it synchronous: beforeCall rewrites, permission denies before the tool runs", async () => {
    const rewrite: Hooks = { beforeCall: () => ({ args: { a: 40, b: 2 } }) };
    const { result } = await sameBothWays(call("add", '{"a":1,"b":1}'), { hooks: rewrite });
    expect(result.ok && result.output.structured).toEqual({ sum: 42 });
    let runs = 0;
    const counted = defineTool({ name: "counted", description: "", input: v.object({}), run: () => void runs++ });
    const refuse: Hooks = { permission: () => ({ deny: "not on Sundays" }) };
    const denied = await sameBothWays(call("counted", "{}"), { registry: createRegistry([counted]), hooks: refuse });
    expect(!denied.result.ok && denied.result.error.code).toBe("denied");
    expect(denied.result.record.permission).toBe("deny");
    expect(runs).toBe(0);
  });

  it("a tool with a retry policy that succeeds at once needs no promise", async () => {
    const steady = defineTool({
      name: "steady",
      description: "",
      input: v.object({}),
      policy: { idempotent: true, retry: { attempts: 3 } },
      run: () => "fine",
    });
    const { result } = await sameBothWays(call("steady", "{}"), { registry: createRegistry([steady]) });
    expect(result.ok && result.record.attempts).toBe(1);
  });
});

describe("executeCallNow: a call that has to wait answers a promise", () => {
  it("a tool that returns a promise: the promise of the same result executeCall gives", async () => {
    const now = executeCallNow(call("echo", '{"text":"hi"}'), observed().options);
    expect(now).toBeInstanceOf(Promise);
    const result = await now;
    expect(result.ok && result.output.content).toEqual([{ type: "text", text: "hi" }]);
    expect(await executeCall(call("echo", '{"text":"hi"}'), observed().options)).toEqual(result);
  });

  it("an async tool past its timeout: timeout, through the promise", async () => {
    const stuck = defineTool({
      name: "stuck",
      description: "",
      input: v.object({}),
      policy: { timeoutMs: 5 },
      run: () => new Promise<string>(() => {}),
    });
    const now = executeCallNow(call("stuck", "{}"), { registry: createRegistry([stuck]) });
    expect(now).toBeInstanceOf(Promise);
    expect(await now).toMatchObject({ ok: false, error: { code: "timeout" }, record: { status: "timed_out" } });
  });

  it("a retry after a failure waits: the second attempt's result, through the promise", async () => {
    let runs = 0;
    const flaky = defineTool({
      name: "flaky",
      description: "",
      input: v.object({}),
      policy: { idempotent: true, retry: { attempts: 2, baseMs: 1, jitter: false } },
      run: () => {
        if (++runs === 1) throw new Error("once");
        return "second time";
      },
    });
    const { options, heard } = observed({ registry: createRegistry([flaky]) });
    const now = executeCallNow(call("flaky", "{}"), options);
    expect(now).toBeInstanceOf(Promise);
    const result = await now;
    expect(result.ok && result.output.content).toEqual([{ type: "text", text: "second time" }]);
    expect(result.record.attempts).toBe(2);
    expect(heard.filter(([kind]: any) => kind === "start").map(([, event]: any) => event.attempt)).toEqual([1, 2]);
  });

  it("an async hook or a journal: a promise; a hook's own thenable still comes back as a real Promise", async () => {
    const later: Hooks = { beforeCall: () => Promise.resolve(undefined) };
    expect(executeCallNow(call("add", '{"a":1,"b":2}'), { registry, hooks: later })).toBeInstanceOf(Promise);
    const thenable: Hooks = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable, on purpose (the pipeline must await it)
      isAllowed: () => ({ then: (done: (ok: boolean) => void) => done(true) }) as unknown as Promise<boolean>,
    };
    const viaThenable = executeCallNow(call("add", '{"a":1,"b":2}'), { registry, hooks: thenable });
    expect(viaThenable).toBeInstanceOf(Promise);
    expect(await viaThenable).toMatchObject({ ok: true, output: { structured: { sum: 3 } } });
    const stored: CallRecord[] = [];
    const journal: CallJournal = {
      begin: async () => ({ kind: "new" }),
      finish: async (record) => void stored.push(record),
    };
    const journaled = executeCallNow(call("add", '{"a":1,"b":2}'), { registry, journal });
    expect(journaled).toBeInstanceOf(Promise);
    expect((await journaled).ok).toBe(true);
    expect(stored.map((record) => record.status)).toEqual(["succeeded"]);
  });
});
