import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../../worker/env";
import { shardCount, tenantLedger } from "../../../worker/ledger/address";
import { tenant } from "../../fixtures/app";
import { eventRoutes } from "../../../worker/routes/events";
import { ADMIN_KEY, BASE, CALL_KEY, json, request } from "../helpers/requests";
import { uid } from "../helpers/ledger";
import { openSse, type Sse } from "../helpers/sse";

const echo = (id: string) =>
  request("/v1/calls/openai", {
    body: {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }],
    },
  });
const finishedFor = (id: string) => (frames: Sse[]) =>
  frames.some((f) => f.event === "call.finished" && f.data.callId === id);

describe("GET /v1/events", () => {
  it("starts with ready, then delivers every event after it, with no wait", async () => {
    for (let round = 0; round < 3; round++) {
      const stream = await openSse(await request("/v1/events"));
      const ready = await stream.ready();
      expect(ready.id!.split(".")).toHaveLength(shardCount(env));
      const id = `sse-r-${uid()}`;
      await echo(id);
      const frames = await stream.until(finishedFor(id));
      await stream.close();
      expect(frames.filter((f) => f.data?.callId === id).map((f) => f.event)).toEqual([
        "call.started",
        "call.finished",
      ]);
    }
  });

  it("streams call events with a token, and resumes after Last-Event-ID", async () => {
    const issued = await json(await request("/v1/events/token", { method: "POST" }));
    expect(issued.token).toMatch(/^evt_/);
    expect(issued.url).not.toContain(CALL_KEY);

    const res = await request(`/v1/events?token=${encodeURIComponent(issued.token)}`, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const stream = await openSse(res);
    await stream.ready();
    const first = `sse-a-${uid()}`;
    await echo(first);
    const frames = await stream.until(finishedFor(first));
    await stream.close();
    const types = frames.filter((f) => f.data?.callId === first).map((f) => f.event);
    expect(types).toEqual(["call.started", "call.finished"]);
    const finished = frames.find((f) => f.event === "call.finished" && f.data?.callId === first)!;
    expect(finished.data.record).toMatchObject({ callId: first, status: "succeeded", tool: "echo" });
    expect(finished.data.key).toBe("dev-call");
    const lastId = frames.at(-1)!.id!;
    expect(lastId.split(".")).toHaveLength(shardCount(env));

    // Missed while disconnected, delivered on resume; nothing from before the resume point.
    const second = `sse-b-${uid()}`;
    await echo(second);
    const resumed = await openSse(await request("/v1/events", { headers: { "Last-Event-ID": lastId } }));
    expect((await resumed.ready()).id).toBe(lastId);
    const more = await resumed.until(finishedFor(second));
    await resumed.close();
    expect(more.filter((f) => f.data?.callId === second).map((f) => f.event)).toEqual([
      "call.started",
      "call.finished",
    ]);
    expect(more.some((f) => f.data?.callId === first)).toBe(false);
  });

  it("streams approval events", async () => {
    const stream = await openSse(await request("/v1/events"));
    await stream.ready();
    const id = `sse-ap-${uid()}`;
    await request("/v1/calls/openai", {
      body: {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "send_message", arguments: '{"to":"x","text":"y"}' } }],
      },
    });
    await request(`/v1/approvals/${id}`, { key: ADMIN_KEY, body: { decision: "deny", reason: "no" } });
    const mine = (await stream.until(finishedFor(id))).filter((f) => f.data?.callId === id);
    await stream.close();
    expect(mine.map((f) => f.event)).toEqual(["approval.requested", "approval.decided", "call.finished"]);
    expect(mine[0]!.data.record.args).toEqual({ to: "x", text: "y" });
    expect(mine[1]!.data).toMatchObject({ decision: "denied", reason: "no" });
  });

  it("shows an approved call starting and finishing", async () => {
    const stream = await openSse(await request("/v1/events"));
    await stream.ready();
    const id = `sse-ok-${uid()}`;
    await request("/v1/calls/openai", {
      body: {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "send_message", arguments: '{"to":"x","text":"y"}' } }],
      },
    });
    await request(`/v1/approvals/${id}`, { key: ADMIN_KEY, body: { decision: "approve" } });
    const mine = (await stream.until(finishedFor(id))).filter((f) => f.data?.callId === id);
    await stream.close();
    expect(mine.map((f) => f.event)).toEqual([
      "approval.requested",
      "approval.decided",
      "call.started",
      "call.finished",
    ]);
    expect(mine[3]!.data.record.status).toBe("succeeded");
  });

  it("opens with the newest events the key may see when asked (?recent=), never on a resume", async () => {
    const ids = [0, 1, 2].map((i) => `sse-rc${i}-${uid()}`);
    for (const id of ids) await echo(id);
    /** A new stream with ?recent=n: its ready, and the events sent before a call made after it. */
    const opened = async (n: number) => {
      const stream = await openSse(await request(`/v1/events?recent=${n}`));
      const ready = await stream.ready();
      const marker = `sse-rcm-${uid()}`;
      await echo(marker);
      const frames = await stream.until(finishedFor(marker));
      await stream.close();
      const before = frames
        .slice(frames.indexOf(ready) + 1)
        .filter((f) => f.event !== undefined && f.data.callId !== marker);
      return { ready, before, marker };
    };
    const name = (f: Sse) => `${f.event} ${f.data.callId}`;
    const three = await opened(3);
    expect(three.ready.data).toEqual({ type: "ready", recent: 3 });
    expect(three.before).toHaveLength(3);
    // All the key may see, to check the three against: none of the rest was newer then.
    const all = await opened(100);
    expect(all.ready.data.recent).toBe(all.before.length);
    const mine = all.before.filter((f) => ids.includes(f.data.callId));
    // Each shard's in order; shards interleave as they answer.
    expect(mine.map(name).sort()).toEqual(ids.flatMap((id) => [`call.finished ${id}`, `call.started ${id}`]).sort());
    for (const id of ids)
      expect(mine.filter((f) => f.data.callId === id).map((f) => f.event)).toEqual(["call.started", "call.finished"]);
    const chosen = new Set(three.before.map(name));
    const oldestChosen = Math.min(...three.before.map((f) => f.data.at));
    const then = all.before.filter((f) => f.data.callId !== three.marker);
    expect(then.filter((f) => !chosen.has(name(f)) && f.data.at > oldestChosen)).toEqual([]);
    expect(three.before.map((f) => f.data.callId)).toContain(ids[2]);
    // The call key sees only its own calls' events; a resumed stream only what came after its id.
    expect(all.before.every((f) => f.data.key === "dev-call")).toBe(true);
    const resumed = await openSse(
      await request("/v1/events?recent=5", { headers: { "Last-Event-ID": three.ready.id! } }),
    );
    expect((await resumed.ready()).data).toEqual({ type: "ready" });
    await resumed.close();
    const refused = await request("/v1/events?recent=101");
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toMatchObject({
      code: "invalid_query",
      message: "recent must be an integer from 0 to 100.",
    });
  });

  it("refuses a missing or unknown token and a key in the URL", async () => {
    expect((await request("/v1/events?token=evt_nope", { key: null })).status).toBe(401);
    expect((await request(`/v1/events?key=${CALL_KEY}`, { key: null })).status).toBe(401);
    expect((await request("/v1/events/token", { method: "POST", key: null })).status).toBe(401);
  });

  it("sends heartbeats while idle and carries gate events (admin) published to a shard", async () => {
    const app = new Hono<AppEnv>().use(tenant).route("/v1/events", eventRoutes({ heartbeatMs: 30, pollMs: 200 }));
    const res = await app.request(`${BASE}/v1/events`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }, env);
    const stream = await openSse(res);
    await stream.ready();
    const gate = `g-${uid()}`;
    await tenantLedger(env, "demo").shard(1).publish({ type: "gate.changed", gate, holders: 1, queued: 0 });
    const frames = await stream.until(
      (fs) =>
        fs.some((f) => f.event === "gate.changed" && f.data.gate === gate) &&
        fs.filter((f) => f.comment === "heartbeat").length >= 2,
    );
    await stream.close();
    expect(frames.find((f) => f.event === "gate.changed")!.data).toMatchObject({ gate, holders: 1 });
  });
});
