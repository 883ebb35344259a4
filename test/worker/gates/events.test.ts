import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { ADMIN_KEY, request } from "../helpers/requests";
import { uid } from "../helpers/ledger";
import { openSse, type Sse } from "../helpers/sse";

const sleepCall = (id: string, ms: number) => ({
  id,
  type: "function",
  function: { name: "sleep", arguments: JSON.stringify({ ms }) },
});

it("a gate announces its holders and queue on the event stream (gate.changed)", async () => {
  const stream = await openSse(await request("/v1/events", { key: ADMIN_KEY }));
  await stream.ready();
  const ids = [`ge-${uid()}`, `ge-${uid()}`];
  // Two sequential sleeps (limit 1): while the first runs the second waits in the queue.
  await request("/v1/calls/openai", {
    body: { role: "assistant", content: null, tool_calls: ids.map((id) => sleepCall(id, 300)) },
  });
  const gateEvents = (frames: Sse[]) =>
    frames.filter((f) => f.event === "gate.changed" && f.data?.gate === "demo:tool:sleep");
  const frames = await stream.until(
    (fs) => gateEvents(fs).some((f) => f.data.holders.length === 0 && f.data.queueDepth === 0),
    8_000,
  );
  await stream.close();
  const events = gateEvents(frames).map((f) => f.data);
  expect(events.length).toBeGreaterThanOrEqual(2);
  expect(events.some((e) => e.holders.length === 1 && ids.includes(e.holders[0].callId))).toBe(true);
  expect(events.every((e) => e.limit === 1 && e.holders.length <= 1)).toBe(true);
  expect(events.at(-1)).toMatchObject({ holders: [], queueDepth: 0 });
});

it("a gate announces to the tenant its acquire names, whatever its own name holds", async () => {
  const stream = await openSse(await request("/v1/events", { key: ADMIN_KEY }));
  await stream.ready();
  // A name that does not start with the tenant: the Gate is told whose it is, it never parses its name.
  const gate = `elsewhere:tool:named-${uid()}`;
  const stub = env.GATES.get(env.GATES.idFromName(gate));
  expect(
    await stub.acquire({
      gate,
      callId: "holder",
      tool: "t",
      rules: { limit: 1, maxQueue: 4 },
      askedAt: Date.now(),
      leaseMs: 60_000,
      pollMs: 1_000,
      tenant: "demo",
    }),
  ).toMatchObject({ ok: true });
  const announced = (frames: Sse[]) => frames.filter((f) => f.event === "gate.changed" && f.data?.gate === gate);
  const frames = await stream.until((fs) => announced(fs).length > 0, 4_000);
  await stream.close();
  await stub.release("holder");
  expect(announced(frames)[0]?.data).toMatchObject({ gate, limit: 1, holders: [{ callId: "holder", tool: "t" }] });
});
