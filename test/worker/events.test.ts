import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../worker/env";
import { ledgerShard, shardCount } from "../../worker/ledger-shards";
import { tenant } from "../../worker/middleware/tenant";
import { eventRoutes } from "../../worker/routes/events";
import { BASE, CALL_KEY, json, request } from "./helpers";
import { uid } from "./ledger-helpers";

interface Sse {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
}

/** Reads SSE frames from a response body until `done` says stop (or the timeout passes). */
async function readUntil(res: Response, done: (frames: Sse[]) => boolean, timeoutMs = 5_000): Promise<Sse[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Sse[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!done(frames) && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))]);
      if (!chunk || chunk.done) break;
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame: Sse = {};
        for (const line of buffer.slice(0, end).split("\n")) {
          if (line.startsWith(":")) frame.comment = line.slice(1).trim();
          else if (line.startsWith("id: ")) frame.id = line.slice(4);
          else if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
        }
        frames.push(frame);
        buffer = buffer.slice(end + 2);
      }
    }
  } finally {
    await reader.cancel();
  }
  return frames;
}

const echo = (id: string) =>
  request("/v1/calls/openai", {
    body: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }] },
  });
const finishedFor = (id: string) => (frames: Sse[]) => frames.some((f) => f.event === "call.finished" && f.data.callId === id);

describe("GET /v1/events", () => {
  it("streams call events with a token, and resumes after Last-Event-ID", async () => {
    const issued = await json(await request("/v1/events/token", { method: "POST" }));
    expect(issued.token).toMatch(/^evt_/);
    expect(issued.url).not.toContain(CALL_KEY);

    const stream = await request(`/v1/events?token=${encodeURIComponent(issued.token)}`, { key: null });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const first = `sse-a-${uid()}`;
    const reading = readUntil(stream, finishedFor(first));
    await new Promise((r) => setTimeout(r, 100)); // the stream starts "from now"
    await echo(first);
    const frames = await reading;
    const types = frames.filter((f) => f.data?.callId === first).map((f) => f.event);
    expect(types).toEqual(["call.started", "call.finished"]);
    const finished = frames.find((f) => f.event === "call.finished" && f.data?.callId === first)!;
    expect(finished.data.record).toMatchObject({ callId: first, status: "succeeded", tool: "echo" });
    const lastId = frames.at(-1)!.id!;
    expect(lastId.split(".")).toHaveLength(shardCount(env));

    // Missed while disconnected, delivered on resume; nothing from before the resume point.
    const second = `sse-b-${uid()}`;
    await echo(second);
    const resumed = await request("/v1/events", { headers: { "Last-Event-ID": lastId } });
    const more = await readUntil(resumed, finishedFor(second));
    expect(more.filter((f) => f.data?.callId === second).map((f) => f.event)).toEqual(["call.started", "call.finished"]);
    expect(more.some((f) => f.data?.callId === first)).toBe(false);
  });

  it("streams approval events", async () => {
    const stream = await request("/v1/events");
    const id = `sse-ap-${uid()}`;
    const reading = readUntil(stream, finishedFor(id));
    await new Promise((r) => setTimeout(r, 100));
    await request("/v1/calls/openai", {
      body: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "send_message", arguments: '{"to":"x","text":"y"}' } }] },
    });
    await request(`/v1/approvals/${id}`, { key: "dev-admin-key", body: { decision: "deny", reason: "no" } });
    const mine = (await reading).filter((f) => f.data?.callId === id);
    expect(mine.map((f) => f.event)).toEqual(["approval.requested", "approval.decided", "call.finished"]);
    expect(mine[0]!.data.record.args).toEqual({ to: "x", text: "y" });
    expect(mine[1]!.data).toMatchObject({ decision: "denied", reason: "no" });
  });

  it("shows an approved call starting and finishing", async () => {
    const stream = await request("/v1/events");
    const id = `sse-ok-${uid()}`;
    const reading = readUntil(stream, finishedFor(id));
    await new Promise((r) => setTimeout(r, 100));
    await request("/v1/calls/openai", {
      body: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "send_message", arguments: '{"to":"x","text":"y"}' } }] },
    });
    await request(`/v1/approvals/${id}`, { key: "dev-admin-key", body: { decision: "approve" } });
    const mine = (await reading).filter((f) => f.data?.callId === id);
    expect(mine.map((f) => f.event)).toEqual(["approval.requested", "approval.decided", "call.started", "call.finished"]);
    expect(mine[3]!.data.record.status).toBe("succeeded");
  });

  it("refuses a missing or unknown token and a key in the URL", async () => {
    expect((await request("/v1/events?token=evt_nope", { key: null })).status).toBe(401);
    expect((await request(`/v1/events?key=${CALL_KEY}`, { key: null })).status).toBe(401);
    expect((await request("/v1/events/token", { method: "POST", key: null })).status).toBe(401);
  });

  it("sends heartbeats while idle and carries gate events published to a shard", async () => {
    const app = new Hono<AppEnv>().use(tenant).route("/v1/events", eventRoutes({ heartbeatMs: 30, pollMs: 200 }));
    const res = await app.request(`${BASE}/v1/events`, { headers: { authorization: `Bearer ${CALL_KEY}` } }, env);
    const gate = `g-${uid()}`;
    setTimeout(() => void ledgerShard(env.LEDGER, "demo", 1).publish({ type: "gate.changed", gate, holders: 1, queued: 0 }), 150);
    const frames = await readUntil(res, (fs) => fs.some((f) => f.event === "gate.changed" && f.data.gate === gate));
    expect(frames.filter((f) => f.comment === "heartbeat").length).toBeGreaterThanOrEqual(2);
    expect(frames.find((f) => f.event === "gate.changed")!.data).toMatchObject({ gate, holders: 1 });
  });
});
