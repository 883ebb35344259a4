import { LoggingMessageNotificationSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { eventually } from "../../wait";
import { waitersOn } from "../helpers/durable-state";
import { json, request } from "../helpers/requests";
import { connect, FIXTURE_VARS, openSession, post, type McpTarget } from "../helpers/mcp";

const open: Client[] = [];
async function client(target: McpTarget = {}) {
  const connected = await connect(target);
  open.push(connected.client);
  return connected.client;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const call = (id: number, name: string, args: unknown, meta?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/** The data lines of an SSE body, parsed. */
async function sseMessages(res: Response): Promise<any[]> {
  const text = await res.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

describe("MCP: progress and logging notifications", () => {
  it("sends the tool's progress to a client that gave a progressToken, before the result", async () => {
    const c = await client({ vars: FIXTURE_VARS });
    const seen: Progress[] = [];
    const result = await c.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(seen.map(({ progress, total }) => [progress, total])).toEqual([
      [0, 100],
      [50, 100],
      [100, 100],
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Progress test completed." }]);
  });

  it("answers SSE when notifications come with the result, JSON when none do", async () => {
    const session = await openSession({ vars: FIXTURE_VARS });
    const streamed = await post(call(1, "test_tool_with_progress", {}, { progressToken: "p1" }), session, {
      vars: FIXTURE_VARS,
    });
    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    const messages = await sseMessages(streamed);
    expect(messages.map((m) => m.method ?? `result ${m.id}`)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "result 1",
    ]);
    expect(messages[1].params).toEqual({ progressToken: "p1", progress: 50, total: 100 });

    // No token: the same tool reports nothing, so the answer is plain JSON.
    const plain = await post(call(2, "test_tool_with_progress", {}), session, { vars: FIXTURE_VARS });
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await plain.json()) as any).result.content[0].text).toBe("Progress test completed.");
  });

  it("drops notifications for a client that reads only JSON", async () => {
    const session = await openSession({ vars: FIXTURE_VARS });
    const res = await post(
      call(1, "test_tool_with_progress", {}, { progressToken: 7 }),
      { ...session, accept: "application/json" },
      { vars: FIXTURE_VARS },
    );
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await res.json()) as any).id).toBe(1);
  });

  it("sends a tool's logs at or above the session's level", async () => {
    const c = await client({ vars: FIXTURE_VARS });
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await c.setLoggingLevel("info");
    await c.callTool({ name: "test_tool_with_logging", arguments: {} });
    expect(logs).toEqual([
      { level: "info", logger: "test_tool_with_logging", data: "Tool execution started" },
      { level: "info", logger: "test_tool_with_logging", data: "Tool processing data" },
      { level: "info", logger: "test_tool_with_logging", data: "Tool execution completed" },
    ]);
    logs.length = 0;
    await c.setLoggingLevel("warning");
    await c.callTool({ name: "test_tool_with_logging", arguments: {} });
    expect(logs).toEqual([]);
  });
});

/** The demo's `sleep` gate (limit 1). */
const sleepGate = () => env.GATES.get(env.GATES.idFromName("demo:tool:sleep"));

/**
 * Until a sleep call runs and its journal watches it (a long-poll of its ledger shard, from 250 ms
 * into the call): a cancel then meets everything a running call has open. Answers its call id.
 */
async function untilSleepRunsWatched(): Promise<string> {
  let callId = "";
  // The running sleep from the records: the gate may list its slot under an earlier call of the
  // isolate, which kept the slot and passed it on.
  await eventually(async () => {
    const running = (await json(await request("/v1/calls?tool=sleep&status=running"))).calls as Array<{
      record: { callId: string };
    }>;
    callId = running[0]?.record.callId ?? "";
    return (
      callId !== "" &&
      (await waitersOn(tenantLedger(env, "demo").for(callId) as unknown as DurableObjectStub, callId)) > 0
    );
  }, "a sleep runs and its journal watches it");
  return callId;
}

describe("MCP: cancellation", () => {
  it("a client's notifications/cancelled aborts the running call and frees its gate slot", async () => {
    const c = await client();
    const abort = new AbortController();
    const started = Date.now();
    const long = c.callTool({ name: "sleep", arguments: { ms: 20_000 } }, undefined, { signal: abort.signal });
    await untilSleepRunsWatched();
    abort.abort("changed my mind");
    await expect(long).rejects.toThrow();
    // sleep is sequential (limit 1): this one runs only once the cancelled call gave its slot back.
    const next = await c.callTool({ name: "sleep", arguments: { ms: 10 } });
    expect(next.isError).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it("a cancelled call ends as cancelled (seen on a raw session)", async () => {
    const session = await openSession();
    const running = post(call(41, "sleep", { ms: 20_000 }), session);
    const callId = await untilSleepRunsWatched();
    // The cancel arrives as a request of its own: it only flags the call, which its own request aborts.
    const cancel = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41, reason: "test" } },
      session,
    );
    expect(cancel.status).toBe(202);
    const answer: any = await (await running).json();
    expect(answer.result).toEqual({
      isError: true,
      content: [{ type: "text", text: 'Error [cancelled]: The call to "sleep" was cancelled.' }],
    });
    expect((await json(await request(`/v1/calls/${callId}?wait=10`))).record).toMatchObject({
      status: "cancelled",
      attempts: 1,
    });
    // The release lands after the answer (under waitUntil).
    await eventually(async () => (await sleepGate().snapshot()).holders.length === 0, "the slot is free");
  });
});
