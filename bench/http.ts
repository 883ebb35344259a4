/**
 * The HTTP API under load: one `add` call per request through POST /v1/calls/openai (auth, decode,
 * pipeline, ledger record, log line, encode) next to the floor, GET /healthz of the same Worker (a
 * constant JSON through the same middleware), and a batch of 8 calls per request (the ledger groups
 * their writes). Beside them, in the same run, a Worker with none of toolgate's code
 * (bench/fixtures/platform) measures what the platform charges for what every call must do: one log
 * line, one durable write, both. Targets are measured in alternating rounds so background load hits
 * all alike; medians over rounds are reported, with CPU time per request of each wrangler dev.
 * Target: the call route serves ≥ 70% of the floor's requests/s.
 * Run: node scripts/run-ts.mjs bench/http.ts   (ROUNDS, SECONDS, CONNECTIONS to tune; INSPECTOR=on to
 * measure wrangler dev with its debugger attached, as `npm run dev` runs it; ~2 minutes)
 */
import type { Result } from "autocannon";
import { cpSync } from "node:fs";
import { resolve } from "node:path";
import { assertClean, checkTarget, getTarget, loadTarget, toolgateFloorTarget, toolgateOpenAiTarget, type Target } from "./lib/http-targets";
import { median } from "./lib/load";
import { treeCpuMs } from "./lib/process-cpu";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const BATCH = 8;
const dir = resolve(".tmp/bench-http");

interface Measured {
  target: Target;
  server: DevServer;
  /** Calls per request. */
  calls: number;
  results: Result[];
  cpuUs: number[];
}

async function main(): Promise<void> {
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  const toolgate = await startDev({ app: snapshot(dir), home: resolve(dir, "home") });
  const platform = await startDev({ app: platformApp, home: resolve(dir, "platform-home"), readyPath: "/const" });
  const measured: Measured[] = [
    { target: toolgateFloorTarget("GET /healthz (floor)", toolgate.url), server: toolgate, calls: 0, results: [], cpuUs: [] },
    { target: toolgateOpenAiTarget("POST /v1/calls/openai (add)", toolgate.url), server: toolgate, calls: 1, results: [], cpuUs: [] },
    { target: toolgateOpenAiTarget(`POST /v1/calls/openai (${BATCH} add calls)`, toolgate.url, BATCH), server: toolgate, calls: BATCH, results: [], cpuUs: [] },
    ...["/const", "/log", "/write", "/log-write"].map((path) => ({ target: getTarget(`platform ${path}`, platform.url, path), server: platform, calls: 0, results: [], cpuUs: [] })),
  ];
  try {
    await Promise.all([waitReady(toolgate), waitReady(platform)]);
    for (const m of measured) await checkTarget(m.target);
    for (const m of measured) assertClean(m.target, await loadTarget(m.target, 2, CONNECTIONS)); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of measured) {
        const before = treeCpuMs(m.server.process.pid!);
        const result = await loadTarget(m.target, SECONDS, CONNECTIONS);
        const cpuMs = treeCpuMs(m.server.process.pid!) - before;
        assertClean(m.target, result);
        m.results.push(result);
        m.cpuUs.push((cpuMs * 1000) / result.requests.total);
      }
    }
  } finally {
    await Promise.all([stopDev(toolgate), stopDev(platform)]);
  }
  const rps = (m: Measured) => median(m.results.map((r) => r.requests.average));
  const cpu = (m: Measured) => median(m.cpuUs);
  const [floor, call, batch, constant, log, write, logWrite] = measured as [Measured, Measured, Measured, Measured, Measured, Measured, Measured];
  console.table(
    measured.map((m) => {
      const base = m.server === toolgate ? floor : constant;
      return {
        route: m.target.name,
        "req/s": Math.round(rps(m)),
        ...(m.calls > 1 ? { "calls/s": Math.round(rps(m) * m.calls) } : { "calls/s": m.calls ? Math.round(rps(m)) : "" }),
        "p50 ms": median(m.results.map((r) => r.latency.p50)),
        "p99 ms": median(m.results.map((r) => r.latency.p99)),
        "CPU µs/req": Math.round(cpu(m)),
        "÷ its floor (req/s)": `${((rps(m) / rps(base)) * 100).toFixed(0)}%`,
      };
    }),
  );
  const ratio = rps(call) / rps(floor);
  const ceiling = rps(logWrite) / rps(constant);
  console.log(`wrangler dev ${INSPECTOR ? "with" : "without"} its inspector; ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, medians over rounds.`);
  console.log(`platform, one log line: ${pct(rps(log) / rps(constant))} of its floor; one DO write: ${pct(rps(write) / rps(constant))}; both: ${pct(ceiling)} (by CPU/request: ${pct(cpu(constant) / cpu(logWrite))}).`);
  console.log(`toolgate add call: ${pct(ratio)} of its floor (by CPU/request: ${pct(cpu(floor) / cpu(call))}); ${pct(ratio / ceiling)} of what the platform leaves for a call with one log line and one durable write.`);
  const perCall = (m: Measured) => Math.round((cpu(m) - cpu(floor)) / m.calls);
  console.log(`CPU per call over the floor: ${perCall(call)} µs alone, ${perCall(batch)} µs in a request of ${BATCH} (their ledger writes travel in groups).`);
  console.log(`add call / floor = ${pct(ratio)} of the floor's requests/s (target ≥ 70%): ${ratio >= 0.7 ? "ok" : "MISSED"}`);
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

await main();
