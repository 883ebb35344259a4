/**
 * Concurrency gates over HTTP: a no-op tool (add) with no gate, { limit: 1 } and { limit: 8 }, each
 * served by its own `wrangler dev` (same build, same machine, same run), measured in turn (call by
 * call for latency, round by round for throughput) so background load hits all three alike.
 *   latency: sequential calls, p50 / p99 per call (the gate never queues here: its cost is the
 *            acquire and release round trips to the gate Durable Object);
 *   throughput: CLIENTS concurrent callers for ROUND_MS, calls/s.
 * Targets: the gate adds ≤ 2 ms to p50; { limit: 8 } sustains ≥ 300 calls/s.
 * Run: node scripts/run-ts.mjs bench/gates.ts
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const SEQUENTIAL = 100;
const CLIENTS = 16;
const ROUND_MS = 1_000;

interface Variant {
  name: string;
  concurrency?: { limit: number; maxQueue?: number };
  port: number;
  server?: ChildProcess;
  latencies: number[];
  rates: number[];
}

const variants: Variant[] = [
  { name: "no gate", port: 8911, latencies: [], rates: [] },
  { name: "{ limit: 1 }", concurrency: { limit: 1, maxQueue: 256 }, port: 8912, latencies: [], rates: [] },
  { name: "{ limit: 8 }", concurrency: { limit: 8, maxQueue: 256 }, port: 8913, latencies: [], rates: [] },
];

const dir = resolve(process.env.BENCH_DIR ?? ".tmp/bench-gates");
// Wrangler needs Node ≥ 22: the project's node@22 when this runs under an older one.
const NODE = existsSync(resolve("node_modules/node/bin/node")) ? resolve("node_modules/node/bin/node") : process.execPath;

/**
 * A copy of the Worker's sources for wrangler dev to serve: wrangler rebuilds on every change it
 * sees, and other work in this checkout must not restart the servers in the middle of a run.
 */
function snapshot(): string {
  const app = resolve(dir, "app");
  rmSync(app, { recursive: true, force: true });
  mkdirSync(resolve(app, "dist/web"), { recursive: true });
  for (const path of ["src", "worker", "package.json", "wrangler.toml", "tsconfig.json", "tsconfig.base.json"]) {
    cpSync(path, resolve(app, path), { recursive: true });
  }
  symlinkSync(resolve("node_modules"), resolve(app, "node_modules"));
  return app;
}

function start(v: Variant, app: string): ChildProcess {
  const home = resolve(dir, String(v.port));
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const config = { name: "bench", tools: ["add"], keys: DEMO_CONFIG.keys, ...(v.concurrency ? { policies: { add: { concurrency: v.concurrency } } } : {}) };
  writeFileSync(resolve(home, ".env"), `TOOLGATE_CONFIG='${JSON.stringify(config)}'\nTOOLGATE_DEMO=false\n`);
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(v.port), "--inspector-port", String(v.port + 100)];
  args.push("--persist-to", resolve(home, "state"), "--env-file", resolve(home, ".env"), "--log-level", "warn", "--show-interactive-dev-session=false");
  const child = spawn(NODE, [resolve("node_modules/wrangler/bin/wrangler.js"), ...args], {
    cwd: app,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return child;
}

/** Ctrl-C, as a developer would stop wrangler dev (it then stops workerd); a hard kill after 5 s. */
async function stop(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGINT");
  const timer = setTimeout(() => server.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

let seq = 0;
async function call(port: number): Promise<number> {
  const id = `b${process.pid}-${++seq}`;
  const body = { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] };
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !text.includes('{\\"sum\\":3}')) throw new Error(`port ${port}: ${res.status} ${text.slice(0, 300)}`);
  return ms;
}

async function ready(v: Variant): Promise<void> {
  const port = v.port;
  for (let i = 0; i < 600; i++) {
    if (v.server?.exitCode !== null) throw new Error(`wrangler dev on ${port} exited (${v.server?.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`wrangler dev on ${port} never answered`);
}

async function throughput(port: number): Promise<number> {
  const end = performance.now() + ROUND_MS;
  let done = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < end) {
      await call(port);
      done++;
    }
  }));
  return done / (ROUND_MS / 1000);
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const median = (values: number[]) => pct(values, 50);

async function main(): Promise<void> {
  const app = snapshot();
  for (const v of variants) v.server = start(v, app);
  try {
    await Promise.all(variants.map((v) => ready(v)));
    for (const v of variants) for (let i = 0; i < 200; i++) await call(v.port); // warm up isolates and DOs
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate call by call, so each variant's samples see the same background load.
      for (let i = 0; i < SEQUENTIAL; i++) for (const v of variants) v.latencies.push(await call(v.port));
      for (const v of variants) v.rates.push(await throughput(v.port));
    }
  } finally {
    await Promise.all(variants.map((v) => stop(v.server)));
  }
  const base = median(variants[0]!.latencies);
  console.table(
    variants.map((v) => ({
      variant: v.name,
      "p50 ms": median(v.latencies).toFixed(2),
      "p99 ms": pct(v.latencies, 99).toFixed(2),
      "gate adds (p50) ms": (median(v.latencies) - base).toFixed(2),
      [`calls/s (${CLIENTS} clients)`]: Math.round(median(v.rates)),
    })),
  );
  const added = Math.max(median(variants[1]!.latencies), median(variants[2]!.latencies)) - base;
  const rate8 = median(variants[2]!.rates);
  console.log(`gate adds ${added.toFixed(2)} ms to p50 (target ≤ 2): ${added <= 2 ? "ok" : "MISSED"}`);
  console.log(`{ limit: 8 } sustains ${Math.round(rate8)} calls/s (target ≥ 300): ${rate8 >= 300 ? "ok" : "MISSED"}`);
}

await main();
