import { request as httpRequest, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * Cancelling a call queued at a gate, through real sockets against `wrangler dev` (workerd, real
 * Durable Objects): the demo's `sleep` (limit 1) is held by one call while another waits. The sleeps
 * report when they ran, so "never ran" and "ran after the holder" are read from the records.
 */

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer();
}, 120_000);
afterAll(() => server?.stop());

const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };
const HOLD_MS = 5_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepBody = (id: string, ms: number) =>
  JSON.stringify([{ id, type: "function", function: { name: "sleep", arguments: JSON.stringify({ ms }) } }]);

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 1_000) throw new Error(`timed out waiting until ${what}`);
    await pause(10);
  }
}

/** A sleep sent over its own socket; `socket.destroy()` is the client going away. */
function sendSleep(id: string, ms: number): { socket: ClientRequest; answered: Promise<number> } {
  const url = new URL(`${server.url}/v1/calls/openai`);
  const body = sleepBody(id, ms);
  const socket = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "POST",
    headers: { ...headers, "content-length": Buffer.byteLength(body) },
  });
  const answered = new Promise<number>((resolve) => {
    socket.on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0)));
    socket.on("error", () => resolve(0));
  });
  socket.end(body);
  return { socket, answered };
}

async function recordOf(id: string): Promise<any> {
  const res = await fetch(`${server.url}/v1/calls/${id}?wait=30`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()).record;
}

async function isQueued(id: string): Promise<boolean> {
  const res = await fetch(`${server.url}/v1/gates`, { headers: { authorization: `Bearer ${DEMO_KEYS.admin}` } });
  const { gates } = (await res.json()) as { gates: { queued: { callId: string }[] }[] };
  return gates.some((gate) => gate.queued.some((w) => w.callId === id));
}

/**
 * A holder sleeping `ms` and a 10 ms sleep queued behind it, each over its own socket. The holder must
 * still hold when the second call is seen queued: on a loaded machine that took longer than 600 ms.
 */
async function queuedBehindHolder(ms: number) {
  const holderId = `hold-${crypto.randomUUID()}`;
  const holder = sendSleep(holderId, ms);
  await until(
    async () => (await fetch(`${server.url}/v1/calls/${holderId}`, { headers })).status === 200,
    "the holder runs",
  );
  const id = `queued-${crypto.randomUUID()}`;
  const queued = sendSleep(id, 10);
  await until(() => isQueued(id), "the call waits at the gate");
  return { holderId, holder, id, queued };
}

describe("a call queued at a gate, over real sockets", () => {
  it("cancelled by POST /v1/calls/:id/cancel (202), never starts once the gate frees", async () => {
    const { holderId, holder, id, queued } = await queuedBehindHolder(HOLD_MS);
    const cancel = await fetch(`${server.url}/v1/calls/${id}/cancel`, { method: "POST", headers, body: "{}" });
    expect(cancel.status).toBe(202);
    expect(await queued.answered).toBe(200);
    expect(await holder.answered).toBe(200);

    const record = await recordOf(id);
    expect(record).toMatchObject({ status: "cancelled", attempts: 0 });
    expect(record.output).toBeUndefined(); // its sleep never ran
    expect((await recordOf(holderId)).status).toBe("succeeded");
  }, 60_000);

  // What differs locally (docs/ledger.md, A client that goes away): workerd under `wrangler dev` never tells the
  // Worker that a client closed its socket (request.signal does not abort; not with raw workerd either),
  // so nothing cancels the queued call. On Cloudflare the signal aborts and the call leaves the queue,
  // as test/worker/api/cancel.test.ts shows with an aborted request. If this starts failing, the local
  // runtime delivers disconnects now: docs/ledger.md should say so.
  it("abandoned by its client (socket closed): local workerd does not deliver the disconnect, so it runs after the holder", async () => {
    const { holderId, holder, id, queued } = await queuedBehindHolder(HOLD_MS);
    queued.socket.destroy();
    expect(await holder.answered).toBe(200);

    const record = await recordOf(id);
    const held = (await recordOf(holderId)).output.structured;
    expect(record.status).toBe("succeeded");
    expect(record.output.structured.startedAt).toBeGreaterThanOrEqual(held.endedAt);
  }, 60_000);
});
