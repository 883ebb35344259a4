/**
 * How long a cancel takes to reach a call, over HTTP against `wrangler dev` (workerd, real Durable
 * Objects, real sockets): from sending POST /v1/calls/:id/cancel (answered 202) to the end of the
 * call, which a sleep ends as soon as its ctx.signal fires (the record's startedAt + durationMs). It
 * includes the cancel request's own trip through wrangler's local proxy, so it is an upper bound.
 *   running, early: a running call cancelled EARLY_MS after it was claimed (before its watch starts);
 *   running, later: cancelled LATE_MS after (its watch is long-polling the ledger);
 *   queued:         a call waiting at a gate behind a sleep, cancelled (it leaves the queue).
 * Run: node scripts/run-ts.mjs bench/cancel.ts   (RUNS per case, default 8)
 */
import { DEMO_KEYS } from "../worker/demo/tenant";
import { startDevServer } from "../test/servers/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 8);
const EARLY_MS = 100;
const LATE_MS = 1_500;

const server = await startDevServer();
const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let seq = 0;

/** Starts one call in its own request; answers its id and the request. */
function start(tool: string, ms: number): { id: string; done: Promise<unknown> } {
  const id = `cancel-bench-${process.pid}-${++seq}`;
  const body = [{ id, type: "function", function: { name: tool, arguments: JSON.stringify({ ms }) } }];
  const done = fetch(`${server.url}/v1/calls/openai`, { method: "POST", headers, body: JSON.stringify(body) }).then(
    (r) => r.json(),
  );
  return { id, done };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2_000 && !(await check()); i++) await pause(5);
}

const claimed = async (id: string) => (await fetch(`${server.url}/v1/calls/${id}`, { headers })).status === 200;
async function queued(id: string): Promise<boolean> {
  const res = await fetch(`${server.url}/v1/gates`, { headers: { authorization: `Bearer ${DEMO_KEYS.admin}` } });
  const { gates } = (await res.json()) as { gates: { queued: { callId: string }[] }[] };
  return gates.some((g) => g.queued.some((w) => w.callId === id));
}

/** Cancels `id`; answers ms from sending the cancel to the end of the call as its record tells. */
async function cancelLatency(id: string, done: Promise<unknown>): Promise<number> {
  const sent = Date.now();
  const res = await fetch(`${server.url}/v1/calls/${id}/cancel`, { method: "POST", headers, body: "{}" });
  if (res.status !== 202) throw new Error(`cancel answered ${res.status}: ${await res.text()}`);
  await done;
  const { record } = (await (await fetch(`${server.url}/v1/calls/${id}?wait=30`, { headers })).json()) as {
    record: { status: string; startedAt: number; durationMs: number };
  };
  if (record.status !== "cancelled") throw new Error(`${id} ended ${record.status}`);
  return record.startedAt + record.durationMs - sent;
}

async function runningCase(afterMs: number): Promise<number> {
  const { id, done } = start("sleep_pool", 10_000);
  await until(() => claimed(id));
  await pause(afterMs);
  return cancelLatency(id, done);
}

async function queuedCase(): Promise<number> {
  const holder = start("sleep", 2_000);
  await until(() => claimed(holder.id));
  const { id, done } = start("sleep", 10);
  await until(() => queued(id));
  const latency = await cancelLatency(id, done);
  await holder.done;
  return latency;
}

const cases: [string, () => Promise<number>][] = [
  [`running, cancelled ${EARLY_MS} ms in`, () => runningCase(EARLY_MS)],
  [`running, cancelled ${LATE_MS} ms in`, () => runningCase(LATE_MS)],
  ["queued at a gate", queuedCase],
];

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
try {
  console.log(
    `cancel latency, cancel sent (answered 202) → call ended (ms), ${RUNS} runs each, wrangler dev on ${server.url}`,
  );
  for (const [name, run] of cases) {
    const latencies: number[] = [];
    for (let i = 0; i < RUNS; i++) latencies.push(await run());
    latencies.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(34)} p50 ${quantile(latencies, 0.5)}  max ${latencies.at(-1)}  (${latencies.join(" ")})`,
    );
  }
} finally {
  await server.stop();
}
