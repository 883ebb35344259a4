/**
 * The HTTP API under load: one `add` call per request through POST /v1/calls/openai (auth, decode,
 * pipeline, ledger record, encode) next to the floor, GET /healthz of the same Worker (a constant JSON
 * through the same middleware), against one `wrangler dev` on 127.0.0.1. The two are measured in
 * alternating rounds so background load hits both alike; medians over rounds are reported.
 * Target: the call route serves ≥ 70% of the floor's requests/s.
 * Run: node scripts/run-ts.mjs bench/http.ts   (ROUNDS, SECONDS, CONNECTIONS to tune; ~1 minute)
 */
import autocannon from "autocannon";
import type { Result } from "autocannon";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { DEMO_KEYS } from "../worker/demo/tenant";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const dir = resolve(".tmp/bench-http");
// Wrangler needs Node ≥ 22: the project's node@22 when this runs under an older one.
const NODE = existsSync(resolve("node_modules/node/bin/node")) ? resolve("node_modules/node/bin/node") : process.execPath;

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on("error", fail);
  });
}

function startWrangler(port: number, inspector: number): ChildProcess {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector)];
  args.push("--persist-to", resolve(dir, "state"), "--log-level", "warn", "--show-interactive-dev-session=false");
  return spawn(NODE, [resolve("node_modules/wrangler/bin/wrangler.js"), ...args], { stdio: ["ignore", "ignore", "inherit"] });
}

async function ready(server: ChildProcess, base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error(`wrangler dev exited (${server.exitCode})`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("wrangler dev never answered");
}

let seq = 0;
/** A fresh tool_call_id per request: a repeated id would be a ledger replay, not a run. */
function addCall(): string {
  const id = `bench-${process.pid}-${++seq}`;
  const message = { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] };
  return JSON.stringify(message);
}

function run(base: string, route: "floor" | "call", seconds: number): Promise<Result> {
  if (route === "floor") return autocannon({ url: `${base}/healthz`, connections: CONNECTIONS, duration: seconds });
  return autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/v1/calls/openai",
        headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
        setupRequest: (req) => ({ ...req, body: addCall() }),
      },
    ],
  });
}

function check(route: string, result: Result): void {
  if (result.errors || result.non2xx || result.timeouts) {
    throw new Error(`${route}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main(): Promise<void> {
  // wrangler dev serves the console's assets too; build them once if this checkout has none yet.
  if (!existsSync("dist/web")) spawnSync("npm", ["run", "build:web"], { stdio: "inherit" });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startWrangler(port, await freePort());
  const samples = { floor: [] as Result[], call: [] as Result[] };
  try {
    await ready(server, base);
    const probe = await fetch(`${base}/v1/calls/openai`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
      body: addCall(),
    });
    const answer = await probe.text();
    if (!answer.includes('{\\"sum\\":3}')) throw new Error(`the add call did not answer its sum: ${probe.status} ${answer.slice(0, 300)}`);
    for (const route of ["floor", "call"] as const) check(route, await run(base, route, 2)); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of ["floor", "call"] as const) {
        const result = await run(base, route, SECONDS);
        check(route, result);
        samples[route].push(result);
      }
    }
  } finally {
    server.kill("SIGTERM");
  }
  const summary = (route: "floor" | "call") => ({
    rps: median(samples[route].map((r) => r.requests.average)),
    p50: median(samples[route].map((r) => r.latency.p50)),
    p99: median(samples[route].map((r) => r.latency.p99)),
  });
  const floor = summary("floor");
  const call = summary("call");
  console.table([
    { route: "GET /healthz (floor)", "req/s": Math.round(floor.rps), "p50 ms": floor.p50, "p99 ms": floor.p99 },
    { route: "POST /v1/calls/openai (add)", "req/s": Math.round(call.rps), "p50 ms": call.p50, "p99 ms": call.p99 },
  ]);
  const ratio = call.rps / floor.rps;
  console.log(`${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, medians over rounds.`);
  console.log(`add call / floor = ${(ratio * 100).toFixed(1)}% of the floor's requests/s (target ≥ 70%): ${ratio >= 0.7 ? "ok" : "MISSED"}`);
}

await main();
