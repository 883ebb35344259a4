/**
 * What detaching costs, over HTTP against `wrangler dev` (workerd, real Durable Objects, real sockets),
 * with the demo tenant's tools under one configuration where `echo` runs detached and `add` inline:
 *   inline:    POST one `add` call, answered with its result (the floor of a recorded call);
 *   detached:  POST one `echo` call, answered with its running record (the call handed to its Runner);
 *   outcome:   then GET /v1/calls/:id?wait=30 until the record is final (the Runner's alarm ran it).
 * Beside them, in the same run, the platform alone (bench/fixtures/platform, no toolgate code):
 *   /write: one RPC that inserts a row into an existing Durable Object;
 *   /start: one RPC to a new Durable Object of its own that inserts a row and sets its alarm, which
 *           then runs (what handing a call to a Runner of its own costs the platform).
 * Rounds alternate every kind request by request; medians and p90 over RUNS requests each.
 * Run: node scripts/run-ts.mjs bench/detached.ts   (RUNS, default 40)
 */
import { cpSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { startDevServer } from "../test/servers/wrangler-dev";
import { startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 40);
const config = { ...DEMO_CONFIG, policies: { echo: { execution: "detached" } } };
const server = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "true" } });
const dir = resolve(".tmp/bench-detached");
cpSync(resolve("bench/fixtures/platform"), resolve(dir, "platform"), { recursive: true });
const platform = await startDev({
  app: resolve(dir, "platform"),
  home: resolve(dir, "platform-home"),
  readyPath: "/const",
});

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - started;
}
const headers = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };
let seq = 0;

async function post(name: string, args: unknown): Promise<{ id: string; ms: number; status: string }> {
  const id = `detached-bench-${process.pid}-${++seq}`;
  const body = JSON.stringify([{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }]);
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/calls/openai`, { method: "POST", headers, body });
  const answer = (await res.json()) as { calls: { status: string }[] };
  return { id, ms: performance.now() - started, status: answer.calls[0]!.status };
}

async function outcome(id: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/calls/${id}?wait=30`, { headers });
  const { record } = (await res.json()) as { record: { status: string } };
  if (record.status !== "succeeded") throw new Error(`${id} ended ${record.status}`);
  return performance.now() - started;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

try {
  await waitReady(platform);
  const write: number[] = [];
  const start: number[] = [];
  const inline: number[] = [];
  const detached: number[] = [];
  const outcomes: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < RUNS + 5; i++) {
    const a = await post("add", { a: 1, b: 2 });
    if (a.status !== "succeeded") throw new Error(`add ended ${a.status}`);
    const d = await post("echo", { text: "hi" });
    if (d.status !== "running") throw new Error(`echo answered ${d.status}: is it detached?`);
    const o = await outcome(d.id);
    const w = await timed(`${platform.url}/write`);
    const s = await timed(`${platform.url}/start`);
    if (i < 5) continue; // warm-up
    write.push(w);
    start.push(s);
    inline.push(a.ms);
    detached.push(d.ms);
    outcomes.push(o);
    total.push(d.ms + o);
  }
  const row = (name: string, values: number[]) =>
    `${name.padEnd(44)} p50 ${quantile(values, 0.5).toFixed(1).padStart(6)} ms   p90 ${quantile(values, 0.9).toFixed(1).padStart(6)} ms`;
  console.log(row("inline add (answered with its result)", inline));
  console.log(row("detached echo (answered as running)", detached));
  console.log(row("then GET ?wait=30 until final", outcomes));
  console.log(row("detached: answer + final record", total));
  console.log(row("platform: one write to an existing object", write));
  console.log(row("platform: one write to a new object + alarm", start));
  console.log(
    `starting a detached call adds ${(quantile(detached, 0.5) - quantile(inline, 0.5)).toFixed(1)} ms to the p50 of an inline recorded call;`,
  );
  console.log(
    `the platform alone: a new object with its alarm costs ${(quantile(start, 0.5) - quantile(write, 0.5)).toFixed(1)} ms more than a write to an existing one`,
  );
} finally {
  await server.stop();
  await stopDev(platform);
}
