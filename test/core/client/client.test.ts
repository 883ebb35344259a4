import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, type ServerEvent, type ToolgateClient } from "../../../src/client";
import { createTransport } from "../../../src/client/http";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import { freePort, startDevServer, type DevServer } from "../../servers/wrangler-dev";
import { eventually } from "../../wait";

// The typed client against the real Worker (`wrangler dev` with the demo tenant, its own empty state).
let server: DevServer;
let call: ToolgateClient;
let admin: ToolgateClient;

beforeAll(async () => {
  server = await startDevServer();
  call = createClient({ baseUrl: server.url, key: "dev-call-key" });
  admin = createClient({ baseUrl: server.url, key: () => "dev-admin-key" });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected a rejection"),
    (error: unknown) => error,
  );
}

describe("client: tools and calls", { timeout: 30_000 }, () => {
  it("reads health and the key's scopes", async () => {
    expect(await call.health()).toMatchObject({ ok: true });
    expect(await call.whoami()).toEqual({ tenant: "demo", key: { name: "dev-call", scopes: ["call"] } });
  });

  it("answers HTTP failures as typed ApiErrors with code and status", async () => {
    const wrongKey = await rejection(createClient({ baseUrl: server.url, key: "nope" }).whoami());
    expect(isApiError(wrongKey) && { status: wrongKey.status, code: wrongKey.code }).toEqual({
      status: 401,
      code: "invalid_key",
    });
    const wrongScope = await rejection(call.gates());
    expect(isApiError(wrongScope) && { status: wrongScope.status, code: wrongScope.code }).toEqual({
      status: 403,
      code: "forbidden",
    });
    const missing = await rejection(call.record("no-such-call"));
    expect(isApiError(missing) && missing.status).toBe(404);
    const unreachable = await rejection(createClient({ baseUrl: `http://127.0.0.1:${await freePort()}` }).health());
    expect(isApiError(unreachable) && { status: unreachable.status, code: unreachable.code }).toEqual({
      status: 0,
      code: "network_error",
    });
  });

  it("lists the catalogue with effective policies, and each format's definitions", async () => {
    const tools = await call.catalog();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("add")?.policy).toMatchObject({ risk: "low", readOnly: true, approval: "never", denied: false });
    expect(byName.get("send_message")?.policy).toMatchObject({ risk: "high", approval: "always" });
    expect(byName.get("sleep")?.policy.concurrency).toEqual({ limit: 1, keyed: false });
    expect(byName.get("add")?.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });

    const openai = await call.tools("openai");
    expect(openai.tools.find((t) => t.function.name === "add")?.type).toBe("function");
    const anthropic = await call.tools("anthropic");
    // A search-mode listing may begin with the API's tool search entry, which has no schema.
    const add = anthropic.tools.find((t) => t.name === "add");
    expect(add && "input_schema" in add ? add.input_schema : undefined).toMatchObject({ type: "object" });
    const mcp = await call.tools("mcp");
    expect(mcp.tools.find((t) => t.name === "add")?.annotations.readOnlyHint).toBe(true);
  });

  it("runs calls in a format and answers in it, with records in order", async () => {
    const answer = await call.run("anthropic", {
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_c1", name: "add", input: { a: 1, b: 2 } },
        { type: "tool_use", id: "toolu_c2", name: "echo", input: { text: "hi" } },
      ],
    });
    expect(answer.message.content.map((block) => block.tool_use_id)).toEqual(["toolu_c1", "toolu_c2"]);
    expect(answer.calls.map((r) => [r.tool, r.status])).toEqual([
      ["add", "succeeded"],
      ["echo", "succeeded"],
    ]);
    const detected = (await call.runDetected({
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { id: "g1", name: "add", args: { a: 4, b: 4 } } }] } },
      ],
    })) as {
      content?: { parts: { functionResponse: { name: string; response: unknown } }[] };
    };
    expect(detected.content?.parts[0]?.functionResponse).toMatchObject({
      name: "add",
      response: { output: { sum: 8 } },
    });
  });

  it("runs one call, reads its record, pages its result, and replays a repeated id", async () => {
    const id = `client-add-${Date.now()}`;
    const record = await call.call("add", { a: 2, b: 3 }, { id });
    expect(record).toMatchObject({ callId: id, status: "succeeded", output: { structured: { sum: 5 } } });
    const entry = await call.record(id, { wait: 5 });
    expect(entry.record.status).toBe("succeeded");
    const page = await call.output(id, { offset: 0, limit: 100 });
    expect(JSON.parse(page.text)).toEqual({ sum: 5 });
    const listed = await call.records({ tool: "add", limit: 50 });
    expect(listed.calls.some((e) => e.record.callId === id)).toBe(true);
    expect(listed.calls.every((e) => e.record.tool === "add")).toBe(true);
    const again = await call.call("add", { a: 2, b: 3 }, { id });
    expect(again).toMatchObject({ status: "succeeded", replay: true });
  });
});

describe("client: paging", { timeout: 30_000 }, () => {
  it("pages records newest first with the cursor, without gaps or repeats", async () => {
    const ids = [0, 1, 2].map((i) => `client-page-${Date.now()}-${i}`);
    for (const id of ids) await call.call("echo", { text: id }, { id });
    const first = await call.records({ tool: "echo", limit: 2 });
    expect(first.calls.map((e) => e.record.callId)).toEqual([ids[2], ids[1]]);
    const seen = first.calls.map((e) => e.record.callId);
    for (let cursor = first.nextCursor; cursor !== null; ) {
      const page = await call.records({ tool: "echo", limit: 2, cursor });
      seen.push(...page.calls.map((e) => e.record.callId));
      cursor = page.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(ids[0]);
  });
});

describe("client: approvals, gates, events", { timeout: 45_000 }, () => {
  it("parks a risky call, lists it masked for admins, and runs it once approved", async () => {
    const id = `client-send-${Date.now()}`;
    const parked = await call.call("send_message", { to: "ada", text: "hello" }, { id });
    expect(parked.status).toBe("pending");
    const pending = await admin.approvals();
    expect(pending.approvals.find((a) => a.callId === id)).toMatchObject({
      tool: "send_message",
      args: { to: "ada", text: "hello" },
    });
    expect(await admin.decide(id, "approve")).toMatchObject({ callId: id, decision: "approve" });
    const done = await call.record(id, { wait: 20 });
    expect(done.record).toMatchObject({ status: "succeeded", output: { structured: { delivered: true, to: "ada" } } });
    const twice = await rejection(admin.decide(id, "deny"));
    expect(isApiError(twice) && twice.status).toBe(409);
  });

  it("records a denial with its reason, and cancels a pending call", async () => {
    const denied = await call.call("send_message", { to: "bob", text: "x" });
    const answer = await admin.decide(denied.callId, "deny", "not today");
    expect(answer.decision === "deny" && answer.call.record.status).toBe("denied");
    const entry = await call.record(denied.callId);
    expect(entry.approval).toMatchObject({ state: "denied", reason: "not today" });

    const other = await call.call("send_message", { to: "eve", text: "y" });
    expect(await call.cancel(other.callId, "changed my mind")).toMatchObject({ state: "cancelled" });
    expect((await call.record(other.callId)).record.status).toBe("cancelled");
  });

  it("answers a call's questions only while it waits for them: a finished call refuses answers, an unknown one is not found", async () => {
    const done = await call.call("add", { a: 1, b: 2 });
    const late = await rejection(call.answer(done.callId, { confirm: { action: "accept" } }));
    expect(isApiError(late) && { status: late.status, code: late.code }).toEqual({
      status: 409,
      code: "not_awaiting_input",
    });
    const unknown = await rejection(call.answer("no-such-call", { confirm: { action: "accept" } }));
    expect(isApiError(unknown) && unknown.status).toBe(404);
  });

  it("a call whose tool asks (pick_option) waits for the answer given with answer(), then runs on", async () => {
    const asked = await call.call("pick_option", { question: "Which one?", options: ["left", "right"] });
    const question = { method: "elicitation/create" };
    expect(asked).toMatchObject({ status: "awaiting_input", error: { inputRequests: { choice: question } } });
    const answer = await call.answer(asked.callId, { choice: { action: "accept", content: { choice: "right" } } });
    expect(answer).toMatchObject({ callId: asked.callId, state: "resumed" });
    const done = await call.record(asked.callId, { wait: 20 });
    const structured = { answered: "accept", choice: "right" };
    expect(done.record).toMatchObject({ status: "succeeded", output: { structured } });
  });

  it("shows a gate after a gated call", async () => {
    await call.call("sleep", { ms: 1 });
    const sleepGate = async () => (await admin.gates()).gates.find((g) => g.limit === 1);
    expect(await sleepGate()).toMatchObject({ queueDepth: 0 });
    // The finished call's slot stays with its isolate (at most LINGER_MS) for its next call, then goes back.
    await eventually(async () => (await sleepGate())?.holders.length === 0, "the finished call's slot is released");
  });

  it("streams events with the key as a header, and resumes after an id", async () => {
    const controller = new AbortController();
    const stream = admin.events({ signal: controller.signal });
    const seen: ServerEvent[] = [];
    const id = `client-events-${Date.now()}`;
    let onReady!: () => void;
    const isReady = new Promise<void>((resolve) => (onReady = resolve));
    const reader = (async () => {
      for await (const event of stream) {
        seen.push(event);
        if (event.type === "ready") onReady();
        if (event.type === "call.finished" && event.data.callId === id) return;
      }
    })();
    // The stream opens with `ready` once it knows where it starts: every call after it is delivered.
    await isReady;
    await call.call("add", { a: 1, b: 1 }, { id });
    await reader;
    controller.abort();
    const mine = seen.filter((e) => e.data.callId === id).map((e) => e.type);
    expect(mine).toEqual(["call.started", "call.finished"]);

    const started = seen.find((e) => e.data.callId === id && e.type === "call.started")!;
    const resumed = admin.events({ lastEventId: started.id!, reconnect: false });
    const ready = await resumed.next();
    const first = await resumed.next();
    await resumed.return(undefined);
    expect(ready.value).toMatchObject({ type: "ready", id: started.id });
    expect(first.value).toMatchObject({ type: "call.finished", data: { callId: id } });

    // A new stream can open with the newest events the key may see (a call key: its own calls').
    const recent = call.events({ recent: 1, reconnect: false });
    expect((await recent.next()).value).toMatchObject({ type: "ready", data: { recent: 1 } });
    expect((await recent.next()).value).toMatchObject({ type: "call.finished", data: { callId: id } });
    await recent.return(undefined);
  });

  it("hands out an event token that opens the stream without the key", async () => {
    const transport = createTransport({ baseUrl: server.url, key: "dev-call-key" });
    const { token } = await transport.json<{ token: string }>("/v1/events/token", { method: "POST", body: {} });
    const controller = new AbortController();
    const response = await fetch(transport.url("/v1/events", { token }), { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    controller.abort();
    const bad = await fetch(transport.url("/v1/events", { token: "evt_wrong" }));
    expect(bad.status).toBe(401);
  });
});

describe("client: mixed batches", { timeout: 30_000 }, () => {
  const shout = defineTool({
    name: "shout",
    description: "Upper-cases text, in the page.",
    input: v.object({ text: v.string() }),
    run: ({ text }) => text.toUpperCase(),
  });

  it("runs local tools here and the rest at the edge, answering once in input order", async () => {
    const body = {
      role: "assistant",
      tool_calls: [
        { id: "m1", type: "function", function: { name: "add", arguments: '{"a":20,"b":22}' } },
        { id: "m2", type: "function", function: { name: "shout", arguments: '{"text":"local"}' } },
        { id: "m3", type: "function", function: { name: "echo", arguments: '{"text":"edge"}' } },
      ],
    };
    const mixed = await call.runMixed(body, { localRegistry: createRegistry([shout]), format: "openai" });
    expect(mixed.answer.messages).toEqual([
      { role: "tool", tool_call_id: "m1", content: '{"sum":42}' },
      { role: "tool", tool_call_id: "m2", content: "LOCAL" },
      { role: "tool", tool_call_id: "m3", content: "edge" },
    ]);
    expect(mixed.results.map((r) => r.record.tenant)).toEqual(["demo", "default", "demo"]);
  });

  it("keeps the answer whole when the API fails: edge calls become failed results", async () => {
    const broken = createClient({ baseUrl: server.url, key: "wrong-key" });
    const calls = [
      { id: "x1", name: "shout", arguments: { text: "still here" } },
      { id: "x2", name: "add", arguments: { a: 1, b: 2 } },
    ];
    const mixed = await broken.runMixed(calls, { localRegistry: createRegistry([shout]), format: "anthropic" });
    const [local, edge] = mixed.answer.message.content;
    expect(local).toMatchObject({ tool_use_id: "x1", content: [{ type: "text", text: "STILL HERE" }] });
    expect(edge).toMatchObject({ tool_use_id: "x2", is_error: true });
    expect(mixed.results[1]).toMatchObject({ ok: false, error: { code: "upstream_error", status: 401 } });
  });
});
