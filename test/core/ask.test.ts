import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { canWaitFor, type AskChannel, type AskMethod } from "../../src/ask";
import { executeCall } from "../../src/pipeline/execute";
import { createRegistry } from "../../src/registry";
import { defineTool } from "../../src/tool";

/**
 * ctx.ask and approval: "user" in the core: a call that asks ends input_required; made again with the answers, it runs.
 */

const elicit = (message: string) => ({ method: "elicitation/create" as const, params: { message } });
const channel = (
  responses: Record<string, unknown> = {},
  methods: AskMethod[] = ["elicitation/create"],
): AskChannel => ({
  responses: responses as AskChannel["responses"],
  methods: new Set(methods),
});

const greet = defineTool({
  name: "greet",
  description: "",
  input: v.object({}),
  run: async (_args, ctx) => {
    const [first, last] = await Promise.all([
      ctx.ask("first", elicit("First name?")),
      ctx.ask("last", elicit("Last name?")),
    ]);
    return `Hello, ${String(first)} ${String(last)}!`;
  },
});
const send = defineTool({
  name: "send",
  description: "",
  input: v.object({ to: v.string() }),
  policy: { approval: "user" },
  run: ({ to }) => `sent to ${to}`,
});
const registry = createRegistry([greet, send]);
const call = (name: string, args: unknown = {}) => ({ id: `c-${Math.random()}`, name, arguments: args });

describe("ctx.ask", () => {
  it("ends the call input_required with every question asked together, then answers from the call made again", async () => {
    const asked = await executeCall(call("greet"), { registry, ask: channel() });
    expect(asked.ok).toBe(false);
    if (asked.ok) return;
    expect(asked.record.status).toBe("input_required");
    expect(asked.error.inputRequests).toEqual({ first: elicit("First name?"), last: elicit("Last name?") });

    const answered = await executeCall(call("greet"), { registry, ask: channel({ first: "Ada", last: "Lovelace" }) });
    expect(answered).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "Hello, Ada Lovelace!" }] } });
  });

  it("a caller that cannot be asked gets input_required naming what the tool asked, and canAsk tells the tool beforehand", async () => {
    const none = await executeCall(call("greet"), { registry });
    expect(none).toMatchObject({
      ok: false,
      error: { code: "input_required", message: expect.stringContaining("cannot be asked") },
    });
    const probe = defineTool({
      name: "probe",
      description: "",
      input: v.object({}),
      run: (_a, ctx) => ({ elicit: ctx.canAsk("elicitation/create"), sample: ctx.canAsk("sampling/createMessage") }),
    });
    const r = await executeCall(call("probe"), { registry: createRegistry([probe]), ask: channel() });
    expect(r).toMatchObject({ ok: true, output: { structured: { elicit: true, sample: false } } });
    // An elicitation's mode counts: form by default, URL when asked for.
    const modes = defineTool({
      name: "modes",
      description: "",
      input: v.object({}),
      run: (_a, ctx) => ({ form: ctx.canAsk("elicitation/create"), url: ctx.canAsk("elicitation/create", "url") }),
    });
    const asking = (elicitationModes?: Set<"form" | "url">) =>
      executeCall(call("modes"), { registry: createRegistry([modes]), ask: { ...channel(), elicitationModes } });
    expect(await asking()).toMatchObject({ output: { structured: { form: true, url: false } } });
    expect(await asking(new Set(["url"]))).toMatchObject({ output: { structured: { form: false, url: true } } });
    expect(await asking(new Set(["form", "url"]))).toMatchObject({ output: { structured: { form: true, url: true } } });
  });

  it("a question the host says gets no answer (channel failures) rejects with that failure; the tool may read it", async () => {
    const failures = { last: { code: "timeout" as const, message: "No answer within 1 s." } };
    const failed = await executeCall(call("greet"), { registry, ask: { ...channel({ first: "Ada" }), failures } });
    expect(failed).toMatchObject({
      ok: false,
      error: { code: "timeout", message: "No answer within 1 s." },
      record: { status: "timed_out" },
    });
    const careful = defineTool({
      name: "careful",
      description: "",
      input: v.object({}),
      run: async (_a, ctx) => ctx.ask("q", elicit("?")).catch((error: Error) => `went on without: ${error.message}`),
    });
    const r = await executeCall(call("careful"), {
      registry: createRegistry([careful]),
      ask: { ...channel(), failures: { q: { code: "cancelled", message: "gone" } } },
    });
    expect(r).toMatchObject({ ok: true, output: { content: [{ text: "went on without: gone" }] } });
  });

  it("an elicitation is asked only in a mode the caller declared (none declared: form only); a task waits only for questions it can be asked", async () => {
    const connect = {
      method: "elicitation/create" as const,
      params: { mode: "url", message: "Sign in", url: "https://example.com/in", elicitationId: "e1" },
    };
    const signIn = defineTool({
      name: "sign_in",
      description: "",
      input: v.object({}),
      run: async (_a, ctx) => `back: ${JSON.stringify(await ctx.ask("connect", connect))}`,
    });
    const tools = createRegistry([signIn, send]);
    const formsOnly = await executeCall(call("sign_in"), {
      registry: tools,
      ask: channel({ connect: { action: "accept" } }),
    });
    expect(formsOnly).toMatchObject({
      ok: false,
      error: {
        code: "input_required",
        message: expect.stringContaining("(elicitation/create in URL mode), and this caller cannot be asked that"),
      },
    });
    const urlModes = { ...channel({ connect: { action: "accept" } }), elicitationModes: new Set(["url"] as const) };
    expect(await executeCall(call("sign_in"), { registry: tools, ask: urlModes })).toMatchObject({
      ok: true,
      output: { content: [{ text: 'back: {"action":"accept"}' }] },
    });
    // approval: "user" asks a form: a URL-only caller cannot confirm, so the call is parked for an admin.
    expect(
      await executeCall(call("send", { to: "ann" }), {
        registry: tools,
        ask: { ...channel(), elicitationModes: new Set(["url"] as const) },
      }),
    ).toMatchObject({ ok: false, record: { status: "pending" } });
    expect(canWaitFor({ ...channel(), waits: true }, { connect })).toBe(false);
    expect(
      canWaitFor(
        { ...channel(), waits: true, elicitationModes: new Set(["form", "url"] as const) },
        { connect, name: elicit("Name?") },
      ),
    ).toBe(true);
  });

  it("refuses keys that are not short and plain", async () => {
    const bad = defineTool({
      name: "bad",
      description: "",
      input: v.object({}),
      run: (_a, ctx) => ctx.ask("a key with spaces", elicit("?")),
    });
    const r = await executeCall(call("bad"), { registry: createRegistry([bad]), ask: channel() });
    expect(r).toMatchObject({
      ok: false,
      error: { code: "tool_error", message: expect.stringContaining("must match") },
    });
  });
});

describe('approval: "user"', () => {
  it("asks the caller to confirm with the call's arguments; approved it runs, declined it is denied", async () => {
    const asked = await executeCall(call("send", { to: "bob" }), { registry, ask: channel() });
    if (asked.ok) throw new Error("expected a question");
    expect(asked.record.status).toBe("input_required");
    const question = asked.error.inputRequests!["toolgate.approval"]!;
    expect(question.method).toBe("elicitation/create");
    expect(question.params.message).toContain('"to":"bob"');

    const yes = await executeCall(call("send", { to: "bob" }), {
      registry,
      ask: channel({ "toolgate.approval": { action: "accept", content: { approve: true } } }),
    });
    expect(yes).toMatchObject({ ok: true, record: { status: "succeeded", permission: "allow" } });
    const no = await executeCall(call("send", { to: "bob" }), {
      registry,
      ask: channel({ "toolgate.approval": { action: "accept", content: { approve: false } } }),
    });
    expect(no).toMatchObject({ ok: false, error: { code: "denied" }, record: { status: "denied" } });
  });

  it("a confirmation that gets no answer denies the call, saying why", async () => {
    const failures = { "toolgate.approval": { code: "cancelled" as const, message: "the client went away" } };
    const r = await executeCall(call("send", { to: "bob" }), { registry, ask: { ...channel(), failures } });
    expect(r).toMatchObject({
      ok: false,
      error: { code: "denied", message: expect.stringContaining("gave no answer (the client went away)") },
      record: { status: "denied" },
    });
  });

  it("a caller that cannot be asked has the call parked for an admin", async () => {
    const parked = await executeCall(call("send", { to: "bob" }), { registry });
    expect(parked).toMatchObject({ ok: false, error: { code: "approval_required" }, record: { status: "pending" } });
  });
});
