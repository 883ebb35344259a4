import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool, richResult } from "../../../src/tool";
import { toolError, ERROR_CODES, type ErrorCode } from "../../../src/errors";
import type { CallEvent } from "../../../src/events";
import { hashJson } from "../../../src/hash";
import type { CallJournal, CallToClaim } from "../../../src/journal";
import type { CallRecord } from "../../../src/result";
import type { JsonValue } from "../../../src/json";
import { createLocalLimiter } from "../../../src/gates/local-limiter";
import { add, boom, echo } from "../fixtures";
import { latch } from "../../wait";

const registry = createRegistry([add, echo, boom]);
const call = (name: string, args: unknown, id = "call_1") => ({ id, name, arguments: args });

describe("executeCall: success", () => {
  it("runs a code tool and records the call", async () => {
    const result = await executeCall(call("add", '{"a":2,"b":3}'), { registry, tenant: "acme" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.output.structured).toEqual({ sum: 5 });
    expect(result.output.content).toEqual([{ type: "text", text: '{"sum":5}' }]);
    expect(result.record).toMatchObject({
      callId: "call_1",
      tenant: "acme",
      tool: "add",
      source: "valibot",
      args: { a: 2, b: 3 },
      validation: { ok: true },
      permission: "allow",
      attempts: 1,
      status: "succeeded",
    });
    expect(result.record.schemaHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("accepts already-parsed arguments and an empty string for no arguments", async () => {
    const none = defineTool({ name: "none", description: "", input: v.object({}), run: () => "ok" });
    const reg = createRegistry([none, add]);
    expect((await executeCall(call("none", ""), { registry: reg })).ok).toBe(true);
    expect((await executeCall(call("add", { a: 1, b: 1 }), { registry: reg })).ok).toBe(true);
  });

  it("normalises strings, rich content and nothing", async () => {
    const rich = defineTool({
      name: "rich",
      description: "",
      input: v.object({ kind: v.string() }),
      run: ({ kind }) =>
        kind === "rich"
          ? richResult([{ type: "image", data: "AAAA", mimeType: "image/png" }], { n: 1 })
          : kind === "none"
            ? undefined
            : "plain",
    });
    const reg = createRegistry([rich]);
    const r1 = await executeCall(call("rich", { kind: "rich" }), { registry: reg });
    expect(r1.ok && r1.output).toEqual({
      content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      structured: { n: 1 },
    });
    const r2 = await executeCall(call("rich", { kind: "none" }), { registry: reg });
    expect(r2.ok && r2.output).toEqual({ content: [] });
    const r3 = await executeCall(call("rich", { kind: "x" }), { registry: reg });
    expect(r3.ok && r3.output).toEqual({ content: [{ type: "text", text: "plain" }] });
  });

  it("reads OpenAI strict-mode nulls for optional fields as omitted (defaults apply)", async () => {
    const search = defineTool({
      name: "search",
      description: "",
      input: v.object({ q: v.string(), limit: v.optional(v.number(), 10), tag: v.nullable(v.string()) }),
      run: (args) => args,
    });
    const r = await executeCall(call("search", '{"q":"x","limit":null,"tag":null}'), {
      registry: createRegistry([search]),
    });
    expect(r.ok && r.output.structured).toEqual({ q: "x", limit: 10, tag: null });
    expect(r.record.args).toEqual({ q: "x", limit: null, tag: null });
  });

  it("cuts output over the tool's budget for the model, keeps it whole in the record", async () => {
    const long = defineTool({
      name: "long",
      description: "",
      input: v.object({}),
      policy: { outputBudget: 100 },
      run: () => "x".repeat(250),
    });
    const r = await executeCall(call("long", {}, "big"), { registry: createRegistry([long]) });
    if (!r.ok) throw new Error("expected success");
    expect(r.output.truncated).toBe(true);
    expect(r.output.content[0]).toEqual({ type: "text", text: "x".repeat(100) });
    expect(JSON.stringify(r.output.content[1])).toContain("/v1/calls/big/result?offset=100");
    expect(r.record.output?.content).toEqual([{ type: "text", text: "x".repeat(250) }]);
  });

  it("generates a call id when the call has none", async () => {
    const result = await executeCall({ id: "", name: "add", arguments: { a: 1, b: 2 } }, { registry });
    expect(result.callId).toMatch(/^call_[0-9a-f-]{36}$/);
  });
});

/** Each code with the smallest setup that produces it. */
describe("executeCall: every error code is a result", () => {
  const seen = new Set<ErrorCode>();
  const expectError = async (promise: Promise<import("../../../src/result").CallResult>, code: ErrorCode) => {
    const result = await promise;
    expect(result.ok).toBe(false);
    if (result.ok) throw new Error("expected failure");
    expect(result.error.code).toBe(code);
    expect(result.error.message.length).toBeGreaterThan(10);
    expect(result.record.error?.code).toBe(code);
    seen.add(code);
    return result;
  };

  it("unknown_tool lists the available tools", async () => {
    const r = await expectError(executeCall(call("nope", "{}"), { registry }), "unknown_tool");
    expect(r.error.message).toContain("add, echo, boom");
    expect(r.record.status).toBe("rejected");
  });

  it("invalid_json", async () => {
    const r = await expectError(executeCall(call("add", '{"a":1,'), { registry }), "invalid_json");
    expect(r.record.args).toBeUndefined();
  });

  it("invalid_arguments lists every offending path and never runs the tool", async () => {
    let ran = false;
    const strict = defineTool({
      name: "strict",
      description: "",
      input: v.object({ a: v.number(), nested: v.object({ list: v.array(v.string()) }) }),
      run: () => {
        ran = true;
      },
    });
    const r = await expectError(
      executeCall(call("strict", { a: "1", nested: { list: ["x", 2] } }), { registry: createRegistry([strict]) }),
      "invalid_arguments",
    );
    expect(ran).toBe(false);
    expect(r.error.issues?.map((i) => i.path)).toEqual(["a", "nested.list[1]"]);
    expect(r.error.message).toContain("nested.list[1]");
    expect(r.error.message).not.toContain("..");
    expect(r.record.validation.ok).toBe(false);
  });

  it("denied by isAllowed, beforeCall and permission hooks", async () => {
    await expectError(
      executeCall(call("add", { a: 1, b: 1 }), { registry, hooks: { isAllowed: () => false } }),
      "denied",
    );
    await expectError(
      executeCall(call("add", { a: 1, b: 1 }), { registry, hooks: { beforeCall: () => ({ deny: "no" }) } }),
      "denied",
    );
    const r = await expectError(
      executeCall(call("add", { a: 1, b: 1 }), {
        registry,
        hooks: { permission: () => ({ deny: "blocked by tenant" }) },
      }),
      "denied",
    );
    expect(r.error.message).toContain("blocked by tenant");
    expect(r.record).toMatchObject({ status: "denied", permission: "deny" });
  });

  it("approval_required parks the call as pending", async () => {
    const risky = defineTool({
      name: "risky",
      description: "",
      input: v.object({}),
      policy: { approval: "always" },
      run: () => "done",
    });
    const r = await expectError(
      executeCall(call("risky", {}, "c-9"), { registry: createRegistry([risky]) }),
      "approval_required",
    );
    expect(r.record.status).toBe("pending");
    expect(r.error.message).toContain("c-9");
    const approved = await executeCall(call("risky", {}, "c-9"), { registry: createRegistry([risky]), approved: true });
    expect(approved.ok).toBe(true);
  });

  it("approval by predicate on arguments", async () => {
    const pay = defineTool({
      name: "pay",
      description: "",
      input: v.object({ amount: v.number() }),
      policy: { approval: (args) => args.amount > 100 },
      run: () => "paid",
    });
    const reg = createRegistry([pay]);
    expect((await executeCall(call("pay", { amount: 5 }), { registry: reg })).ok).toBe(true);
    await expectError(executeCall(call("pay", { amount: 500 }), { registry: reg }), "approval_required");
  });

  it("timeout discards the late result of a tool that ignores its signal", async () => {
    const finished = latch();
    const release = latch();
    let done = false;
    const slow = defineTool({
      name: "slow",
      description: "",
      input: v.object({}),
      policy: { timeoutMs: 20 },
      run: async () => {
        await release.opened; // held until the caller has its timeout, however slow the machine
        done = true;
        finished.open();
        return "late";
      },
    });
    const r = await expectError(executeCall(call("slow", {}), { registry: createRegistry([slow]) }), "timeout");
    expect(r.record.status).toBe("timed_out");
    expect(done).toBe(false);
    release.open();
    await finished.opened; // the tool ran to its end all the same: its result was dropped, not awaited
    expect(done).toBe(true);
  });

  it("cancelled by the caller's signal aborts the tool's signal", async () => {
    let sawAbort = false;
    const started = latch();
    const wait = defineTool({
      name: "wait",
      description: "",
      input: v.object({}),
      run: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve("stopped");
          });
          started.open();
        }),
    });
    const controller = new AbortController();
    const pending = executeCall(call("wait", {}), { registry: createRegistry([wait]), signal: controller.signal });
    await started.opened; // cancelled while the tool runs
    controller.abort();
    const r = await expectError(pending, "cancelled");
    expect(sawAbort).toBe(true);
    expect(r.record.status).toBe("cancelled");
  });

  it.each([
    ["its own limiter", { limiter: createLocalLimiter() }],
    ["no limiter: the process-wide one, loaded on first use", {}],
  ])("busy when a gate's queue is full (%s)", async (_, limiter) => {
    const held = latch();
    const running = latch();
    const gated = defineTool({
      name: "gated",
      description: "",
      input: v.object({}),
      policy: { concurrency: { limit: 1, maxQueue: 0 } },
      run: async () => {
        running.open();
        await held.opened;
        return "ok";
      },
    });
    const options = { registry: createRegistry([gated]), ...limiter };
    const first = executeCall(call("gated", {}, "first"), options);
    await running.opened; // the first holds the only slot
    const r = await expectError(executeCall(call("gated", {}, "second"), options), "busy");
    expect(r.error.retryAfterMs).toBeGreaterThan(0);
    held.open();
    expect((await first).ok).toBe(true);
  });

  it("upstream_error and tool_error from throwing tools", async () => {
    const up = await expectError(executeCall(call("boom", { kind: "upstream" }), { registry }), "upstream_error");
    expect(up.error.status).toBe(502);
    const plain = await expectError(executeCall(call("boom", {}), { registry }), "tool_error");
    expect(plain.error.message).toContain("kaput");
    const str = await expectError(executeCall(call("boom", { kind: "string" }), { registry }), "tool_error");
    expect(str.error.message).toContain("a thrown string");
  });

  it("tool_error when the output breaks the output schema or is not JSON", async () => {
    const liar = defineTool({
      name: "liar",
      description: "",
      input: v.object({ big: v.optional(v.boolean()) }),
      output: v.object({ n: v.number() }),
      run: ({ big }) => (big ? ({ n: 10n } as never) : ({ n: "x" } as never)),
    });
    const reg = createRegistry([liar]);
    const r = await expectError(executeCall(call("liar", {}), { registry: reg }), "tool_error");
    expect(r.error.issues?.[0]?.path).toBe("n");
    await expectError(executeCall(call("liar", { big: true }), { registry: reg }), "tool_error");
  });

  it("conflict from the journal", async () => {
    const journal: CallJournal = {
      begin: async () => ({ kind: "conflict", message: "call id call_1 was used with other arguments" }),
      finish: async () => {},
    };
    await expectError(executeCall(call("add", { a: 1, b: 2 }), { registry, journal }), "conflict");
  });

  it("busy with the hint when the journal's storage says busy (overloaded), internal for any other journal failure", async () => {
    let finished: CallRecord | undefined;
    const busy: CallJournal = {
      begin: async () => {
        throw toolError("busy", "the ledger is overloaded; try again in 1 s.", { retryAfterMs: 1000 });
      },
      finish: async (record) => void (finished = record),
    };
    const r = await expectError(executeCall(call("add", { a: 1, b: 2 }), { registry, journal: busy }), "busy");
    expect(r.error).toEqual({
      code: "busy",
      message: "the ledger is overloaded; try again in 1 s.",
      retryAfterMs: 1000,
    });
    expect(finished).toMatchObject({ status: "failed", error: { code: "busy" } });
    const broken: CallJournal = {
      begin: async () => {
        throw new Error("shard bug");
      },
      finish: async () => {},
    };
    await expectError(executeCall(call("add", { a: 1, b: 2 }), { registry, journal: broken }), "internal");
  });

  it("internal when a hook itself throws", async () => {
    await expectError(
      executeCall(call("add", { a: 1, b: 2 }), {
        registry,
        hooks: {
          beforeCall: () => {
            throw new Error("hook bug");
          },
        },
      }),
      "internal",
    );
  });

  it("tool_definition_changed passes through from a tool", async () => {
    const pinned = defineTool({
      name: "pinned",
      description: "",
      input: v.object({}),
      run: () => {
        throw toolError("tool_definition_changed", "the remote definition changed; an admin must re-approve it");
      },
    });
    await expectError(
      executeCall(call("pinned", {}), { registry: createRegistry([pinned]) }),
      "tool_definition_changed",
    );
  });

  it("running for a detached call handed to its runner (not a failure: its outcome follows)", async () => {
    const later = defineTool({
      name: "later",
      description: "",
      input: v.object({}),
      policy: { execution: "detached" },
      run: () => "done",
    });
    const journal: CallJournal = {
      begin: async () => ({ kind: "new" }),
      finish: async () => undefined,
      handOff: async () => ({ owner: "o", release: () => undefined }),
    };
    const r = await expectError(
      executeCall(call("later", {}), {
        registry: createRegistry([later]),
        journal,
        runner: { detach: async () => undefined },
      }),
      "running",
    );
    expect(r.record.status).toBe("running");
  });

  it("input_required for a tool that asks its caller what the call does not carry yet", async () => {
    const asking = defineTool({
      name: "asking",
      description: "",
      input: v.object({}),
      run: async (_a, ctx) => ctx.ask("name", { method: "elicitation/create", params: { message: "Name?" } }),
    });
    const r = await expectError(
      executeCall(call("asking", {}), { registry: createRegistry([asking]) }),
      "input_required",
    );
    expect(r.record.status).toBe("input_required");
  });

  it("covered every code", () => {
    expect([...seen].sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe("hooks", () => {
  it("beforeCall rewrites arguments (e.g. to inject credentials) after validation", async () => {
    let seenArgs: unknown;
    const t = defineTool({
      name: "t",
      description: "",
      input: v.object({ q: v.string() }),
      run: (args) => {
        seenArgs = args;
        return "ok";
      },
    });
    await executeCall(call("t", { q: "x" }), {
      registry: createRegistry([t]),
      hooks: [
        { beforeCall: (_c, args) => ({ args: { ...(args as object), token: "abc" } }) },
        { beforeCall: (_c, args) => ({ args: { ...(args as object), n: 1 } }) },
      ],
    });
    expect(seenArgs).toEqual({ q: "x", token: "abc", n: 1 });
  });

  it("first deny wins across composed hooks, and later hooks do not run", async () => {
    const order: string[] = [];
    const r = await executeCall(call("add", { a: 1, b: 2 }), {
      registry,
      hooks: [
        { permission: () => (order.push("one"), undefined) },
        { permission: () => (order.push("two"), { deny: "two says no" }) },
        { permission: () => (order.push("three"), "approval") },
      ],
    });
    expect(order).toEqual(["one", "two"]);
    expect(!r.ok && r.error.message).toContain("two says no");
  });

  it("emits started, progress and finished events, and a throwing listener changes nothing", async () => {
    const events: CallEvent[] = [];
    const progress = defineTool({
      name: "progress",
      description: "",
      input: v.object({}),
      run: async (_a, ctx) => {
        ctx.progress({ progress: 1, total: 2, message: "half" });
        return "done";
      },
    });
    const starts: string[] = [];
    const r = await executeCall(call("progress", {}), {
      registry: createRegistry([progress]),
      hooks: [
        { onEvent: (e) => events.push(e), onStart: (e) => starts.push(`${e.tool}#${e.attempt}`) },
        {
          onEvent: () => {
            throw new Error("listener bug");
          },
        },
      ],
    });
    expect(r.ok).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["call.started", "call.progress", "attempt.finished", "call.finished"]);
    expect(starts).toEqual(["progress#1"]);
  });

  it("onResult receives the terminal record for every outcome", async () => {
    const records: CallRecord[] = [];
    const hooks = { onResult: (r: CallRecord) => records.push(r) };
    await executeCall(call("nope", {}), { registry, hooks });
    await executeCall(call("add", "{"), { registry, hooks });
    await executeCall(call("add", { a: 1, b: 1 }), { registry, hooks });
    expect(records.map((r) => r.status)).toEqual(["rejected", "rejected", "succeeded"]);
  });

  it("masks configured secrets in records, events and results, with custom masks after", async () => {
    const events: CallEvent[] = [];
    const leak = defineTool({
      name: "leak",
      description: "",
      input: v.object({ note: v.string() }),
      run: (_a, ctx) => `the key is ${ctx.secrets.API_KEY} (${btoa(ctx.secrets.API_KEY!)})`,
    });
    const r = await executeCall(call("leak", { note: "mine is sk-live-123456" }), {
      registry: createRegistry([leak]),
      secrets: { API_KEY: "sk-live-123456" },
      hooks: {
        onEvent: (e) => events.push(e),
        mask: (value) => JSON.parse(JSON.stringify(value).replaceAll("mine", "MINE")),
      },
    });
    const everything = JSON.stringify([r, events]);
    expect(everything).not.toContain("sk-live-123456");
    expect(everything).not.toContain(btoa("sk-live-123456"));
    expect(r.record.args).toEqual({ note: "MINE is [redacted]" });
  });

  it("redacts sensitive keys in what observers see", async () => {
    const login = defineTool({
      name: "login",
      description: "",
      input: v.object({ user: v.string(), password: v.string() }),
      run: () => "ok",
    });
    const seen: CallRecord[] = [];
    const r = await executeCall(call("login", { user: "ann", password: "hunter22" }), {
      registry: createRegistry([login]),
      hooks: { onResult: (record) => seen.push(record) },
    });
    expect(seen[0]?.args).toEqual({ user: "ann", password: "[redacted]" });
    expect(r.record.args).toEqual({ user: "ann", password: "[redacted]" });
  });

  it("shouldRetry overrides the default decision", async () => {
    let calls = 0;
    const flaky = defineTool({
      name: "flaky",
      description: "",
      input: v.object({}),
      policy: { retry: { attempts: 3, baseMs: 1 } },
      run: () => {
        calls++;
        throw new Error("flaky");
      },
    });
    const r = await executeCall(call("flaky", {}), {
      registry: createRegistry([flaky]),
      hooks: { shouldRetry: () => true },
    });
    expect(calls).toBe(3);
    expect(r.record.attempts).toBe(3);
  });
});

describe("idempotency through a journal", () => {
  it("replays a stored outcome without running the tool again", async () => {
    const rows = new Map<string, { hash: string; record?: CallRecord }>();
    const journal: CallJournal = {
      async begin(entry: CallToClaim) {
        const row = rows.get(entry.callId);
        const hash = hashJson({ tool: entry.tool.name, args: entry.args });
        if (!row) {
          rows.set(entry.callId, { hash });
          return { kind: "new" };
        }
        if (row.hash !== hash) return { kind: "conflict", message: "other arguments" };
        return { kind: "replay", record: row.record! };
      },
      async finish(record) {
        const row = rows.get(record.callId);
        if (row) row.record = record;
      },
    };
    let runs = 0;
    const counted = defineTool({
      name: "counted",
      description: "",
      input: v.object({ n: v.number() }),
      run: ({ n }) => (runs++, n * 2),
    });
    const options = { registry: createRegistry([counted]), journal };
    const first = await executeCall(call("counted", { n: 2 }, "same"), options);
    const again = await executeCall(call("counted", '{"n":2}', "same"), options);
    const other = await executeCall(call("counted", { n: 3 }, "same"), options);
    expect(runs).toBe(1);
    expect(first.ok && first.output.structured).toBe(4);
    expect(again.ok && again.output.structured).toBe(4);
    expect(again.record.replay).toBe(true);
    expect(!other.ok && other.error.code).toBe("conflict");
  });

  it("builds and masks a call's record once, at its finish, when the journal does not read its claim's", async () => {
    let masked = 0;
    const hooks = { mask: (value: JsonValue) => (masked++, value) };
    const registry = createRegistry([add]);
    const masksOf = async (journal?: CallJournal) => {
      masked = 0;
      const result = await executeCall(call("add", { a: 1, b: 2 }), { registry, hooks, journal });
      expect(result.ok).toBe(true);
      return masked;
    };
    const deferring: CallJournal = { begin: async () => ({ kind: "new" }), finish: async () => {} };
    const claims: CallRecord[] = [];
    const reading: CallJournal = {
      begin: async (entry) => (claims.push(entry.record, entry.record), { kind: "new" }),
      finish: async () => {},
    };
    const alone = await masksOf();
    expect(await masksOf(deferring)).toBe(alone);
    // A journal that stores the claim's record gets it built and masked once, however often it reads it.
    expect(await masksOf(reading)).toBe(alone + 1);
    expect(claims[0]).toBe(claims[1]);
    expect(claims[0]).toMatchObject({ status: "running", args: { a: 1, b: 2 } });
  });

  it("tells the journal the tool (its readOnly and idempotent policy), so it can defer or re-run a claim", async () => {
    const begins: CallToClaim[] = [];
    const journal: CallJournal = {
      async begin(entry) {
        begins.push(entry);
        return { kind: "new" };
      },
      async finish() {},
    };
    const tool = (name: string, policy: { readOnly?: boolean; idempotent?: boolean }) =>
      defineTool({ name, description: "", input: v.object({}), policy, run: () => "ok" });
    const registry = createRegistry([
      tool("lookup", { readOnly: true }),
      tool("put", { idempotent: true }),
      tool("send", {}),
    ]);
    for (const name of ["lookup", "put", "send"]) await executeCall(call(name, {}), { registry, journal });
    expect(
      begins.map(({ tool }) => ({
        tool: tool.name,
        readOnly: tool.policy.readOnly,
        idempotent: tool.policy.idempotent,
      })),
    ).toEqual([
      { tool: "lookup", readOnly: true, idempotent: undefined },
      { tool: "put", readOnly: undefined, idempotent: true },
      { tool: "send", readOnly: undefined, idempotent: undefined },
    ]);
  });
});

describe("executeCall: the user a call is made for", () => {
  const seen: unknown[] = [];
  const whoami = defineTool({
    name: "whoami",
    description: "",
    input: v.object({}),
    policy: { concurrency: { limit: 1, key: "@user" } },
    run: (_args, ctx) => ({ user: ctx.user ?? null }),
  });
  const users = createRegistry([whoami]);
  const hooks = {
    isAllowed: (hook: { user?: unknown }) => (seen.push(["isAllowed", hook.user ?? null]), true),
    beforeCall: (hook: { user?: unknown }) => void seen.push(["beforeCall", hook.user ?? null]),
  };

  it("gives tools ctx.user and hooks call.user, frozen, and keys the gate by it", async () => {
    seen.length = 0;
    const gates: string[] = [];
    const limiter = createLocalLimiter();
    const watched = {
      acquire: (request: Parameters<typeof limiter.acquire>[0]) => (gates.push(request.gate), limiter.acquire(request)),
    };
    const user = { id: "bob", name: "Bob Builder", email: "bob@example.test" };
    const result = await executeCall(call("whoami", "{}"), {
      registry: users,
      tenant: "t",
      user,
      hooks,
      limiter: watched,
    });
    expect(result.ok && result.output.structured).toEqual({ user });
    expect(seen).toEqual([
      ["isAllowed", user],
      ["beforeCall", user],
    ]);
    expect(gates).toEqual(["t:tool:whoami:key:user:bob"]);
    const frozen = defineTool({
      name: "mutate",
      description: "",
      input: v.object({}),
      run: (_args, ctx) => {
        (ctx.user as { id: string }).id = "alice";
      },
    });
    const mutated = await executeCall(call("mutate", "{}"), { registry: createRegistry([frozen]), user });
    expect(mutated.ok).toBe(false);
    expect(user.id).toBe("bob");
  });

  it("leaves ctx.user undefined for a call made for nobody", async () => {
    seen.length = 0;
    const result = await executeCall(call("whoami", "{}"), { registry: users, hooks });
    expect(result.ok && result.output.structured).toEqual({ user: null });
    expect(seen).toEqual([
      ["isAllowed", null],
      ["beforeCall", null],
    ]);
  });
});
