import { env as bindings } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { shardOf } from "../../../worker/ledger/address";
import type { AppEnv } from "../../../worker/env";
import { eventRoutes } from "../../../worker/routes/events";
import { tenant as loadTenant } from "../../fixtures/app";
import { eventually } from "../../wait";
import { uid } from "../helpers/adapters";
import { faultTenant } from "../helpers/faults";
import { ADMIN_KEY, BASE, json, request } from "../helpers/requests";
import { holdTool, latch } from "../helpers/hold";
import { modernPost, type McpTarget } from "../helpers/mcp";
import { openSse, type Sse } from "../helpers/sse";

/**
 * A live tenant's shard count changed through the admin route (PUT /v1/ledger/shards), and everything
 * that reads calls recorded before it: records, listings, cancel, approvals, events, MCP tasks.
 */

/** A fresh tenant whose ledger starts with 2 shards. */
function tenant(prefix: string) {
  const made = faultTenant(prefix, { tools: ["echo", "send_message"], http: [holdTool({ execution: "detached" })] });
  const env = { ...made.env, LEDGER_SHARDS: "2" };
  return { name: made.name, env, target: { vars: env as Record<string, string> } as McpTarget };
}

type Env = Record<string, unknown>;
const shards = (env: Env, body: unknown, key = ADMIN_KEY) =>
  request("/v1/ledger/shards", { env, key, method: "PUT", body });

/** Call ids (with a prefix unique to the test) whose shard under 2 differs from the one under 5. */
function movingIds(prefix: string, count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++)
    if (shardOf(`${prefix}${i}`, 2) !== shardOf(`${prefix}${i}`, 5)) ids.push(`${prefix}${i}`);
  return ids;
}

async function callTool(env: Env, id: string, name: string, args: unknown) {
  const res = await request("/v1/calls/openai", {
    env,
    body: {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    },
  });
  expect(res.status).toBe(200);
  return (await json(res)).calls[0];
}

describe("PUT /v1/ledger/shards", () => {
  it("needs the admin scope and a shard count from 1 to 256 other than the current one; GET shows the map; drop ends an empty old version", async () => {
    const { env } = tenant("shadm");
    expect((await shards(env, { shards: 5 }, "dev-call-key")).status).toBe(403);
    for (const [body, message] of [
      [{ shards: 0 }, "from 1 to 256"],
      [{ shards: 257 }, "from 1 to 256"],
      [{ shards: 2.5 }, "from 1 to 256"],
      [{ shards: "5" }, "from 1 to 256"],
      ["not json", "from 1 to 256"],
      [{ shards: 2 }, "already has 2 shards"],
    ] as const) {
      const res = await shards(env, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error).toMatchObject({
        code: "invalid_shards",
        message: expect.stringContaining(message),
      });
    }
    expect(await json(await request("/v1/ledger/shards", { env, key: ADMIN_KEY }))).toMatchObject({
      shards: 2,
      version: 1,
    });

    const changed = await shards(env, { shards: 5 });
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({
      shards: 5,
      version: 2,
      versions: [
        { version: 2, shards: 5 },
        { version: 1, shards: 2 },
      ],
    });
    // Nothing was recorded under version 1: it goes at once.
    const dropped = await json(await request("/v1/ledger/shards/drop", { env, key: ADMIN_KEY, method: "POST" }));
    expect(dropped).toMatchObject({ dropped: [1], shards: 5, versions: [{ version: 2, shards: 5 }] });
  });

  it("after 2 → 5, calls recorded before are read, listed, replayed, cancelled and approved; events resume across the new shards", async () => {
    const { env } = tenant("shhttp");
    const run = uid();
    const [done1, done2, done3] = movingIds(`d-${run}-`, 3);
    const [parked, toCancel] = movingIds(`p-${run}-`, 2);
    for (const id of [done1!, done2!, done3!])
      expect((await callTool(env, id, "echo", { text: id })).status).toBe("succeeded");
    for (const id of [parked!, toCancel!])
      expect((await callTool(env, id, "send_message", { to: "bob", text: id })).status).toBe("pending");
    const before = await openSse(await request("/v1/events", { env, key: ADMIN_KEY }));
    const cursor = (await before.ready()).id!;
    await before.close();
    expect(cursor.split(".")).toHaveLength(2);

    expect((await shards(env, { shards: 5 })).status).toBe(200);
    for (const id of [done1!, done2!, done3!]) {
      expect((await json(await request(`/v1/calls/${id}`, { env }))).record).toMatchObject({
        callId: id,
        status: "succeeded",
      });
    }
    const replay = await callTool(env, done1!, "echo", { text: done1 });
    expect(replay).toMatchObject({ callId: done1, status: "succeeded", replay: true });
    const conflict = await request("/v1/calls/openai", {
      env,
      body: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: done2, type: "function", function: { name: "echo", arguments: '{"text":"other"}' } }],
      },
    });
    expect(conflict.status).toBe(409);

    const [later] = movingIds(`n-${run}-`, 1);
    await callTool(env, later!, "echo", { text: "after" });
    const listed = (await json(await request(`/v1/calls?limit=200`, { env, key: ADMIN_KEY }))).calls.map(
      (entry: any) => entry.record.callId,
    );
    expect([...listed].sort()).toEqual([done1, done2, done3, parked, toCancel, later].sort());

    const cancelled = await request(`/v1/calls/${toCancel}/cancel`, { env, method: "POST", body: {} });
    expect(await json(cancelled)).toMatchObject({ callId: toCancel, state: "cancelled" });
    const approved = await request(`/v1/approvals/${parked}`, { env, key: ADMIN_KEY, body: { decision: "approve" } });
    expect(approved.status).toBe(202);
    expect((await json(await request(`/v1/calls/${parked}?wait=20`, { env }))).record.status).toBe("succeeded");

    // Resumed from the 2-shard cursor: the new shards are read from the change on.
    const resumed = await openSse(
      await request("/v1/events", { env, key: ADMIN_KEY, headers: { "Last-Event-ID": cursor } }),
    );
    const finishedFor = (id: string) => (frames: Sse[]) =>
      frames.some((f) => f.event === "call.finished" && f.data.callId === id);
    const frames = await resumed.until(
      (fs) => finishedFor(later!)(fs) && finishedFor(parked!)(fs) && finishedFor(toCancel!)(fs),
    );
    await resumed.close();
    expect(frames.filter((f) => f.data?.callId === later).map((f) => f.event)).toEqual([
      "call.started",
      "call.finished",
    ]);
    expect(frames.find((f) => f.event === "approval.decided" && f.data.callId === parked)).toBeDefined();
    expect(frames.at(-1)!.id!.split(".")).toHaveLength(5);
  });

  it("an open event stream learns the new shards without reconnecting", async () => {
    const { env } = tenant("shgrow");
    const app = new Hono<AppEnv>().use(loadTenant).route("/v1/events", eventRoutes({ heartbeatMs: 1_000, growMs: 50 }));
    const stream = await openSse(
      await app.request(
        `${BASE}/v1/events`,
        { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
        { ...bindings, ...env },
      ),
    );
    expect((await stream.ready()).id!.split(".")).toHaveLength(2);
    expect((await shards(env, { shards: 5 })).status).toBe(200);
    // An id whose home is one of the added shards (2, 3 or 4).
    let id = "";
    for (let i = 0; shardOf(id, 5) < 2; i++) id = `g-${uid()}-${i}`;
    await callTool(env, id, "echo", { text: "grown" });
    const frames = await stream.until((fs) => fs.some((f) => f.event === "call.finished" && f.data.callId === id));
    await stream.close();
    expect(frames.filter((f) => f.data?.callId === id).map((f) => f.event)).toEqual(["call.started", "call.finished"]);
  });

  it("an MCP task created before the change is read by tasks/get, and its run completes on its old shard", async () => {
    const { env, target } = tenant("shtask");
    const hold = `h-${uid()}`;
    const meta = {
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    };
    const post = async (method: string, params: Record<string, unknown>) => {
      const name = typeof params.taskId === "string" ? params.taskId : (params.name as string);
      return (await (await modernPost(method, params, { target, meta, headers: { "mcp-name": name } })).json()) as any;
    };
    // Task ids are the server's: keep creating until one's shard moves under 5 (4 in 5 do).
    let taskId = "";
    let latchId = "";
    for (let i = 0; taskId === "" || shardOf(taskId, 2) === shardOf(taskId, 5); i++) {
      latchId = `${hold}-${i}`;
      taskId = (await post("tools/call", { name: "hold", arguments: { id: latchId } })).result.taskId;
    }
    expect((await shards(env, { shards: 5 })).status).toBe(200);
    expect((await post("tasks/get", { taskId })).result).toMatchObject({ taskId, status: "working" });
    await eventually(async () => (await latch(latchId).arrivals()) === 1, "the run reaches the upstream");
    await latch(latchId).open();
    await eventually(
      async () => (await post("tasks/get", { taskId })).result?.status === "completed",
      "the task completes",
    );
    expect((await json(await request(`/v1/calls/${taskId}`, { env }))).record.status).toBe("succeeded");
  });
});
