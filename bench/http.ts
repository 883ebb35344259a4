/**
 * The HTTP API under load: one `add` call per request through POST /v1/calls/openai (auth, decode,
 * pipeline, ledger record, encode) next to the floor, GET /healthz of the same Worker (a constant JSON
 * through the same middleware), against one `wrangler dev` on 127.0.0.1. The two are measured in
 * alternating rounds so background load hits both alike; medians over rounds are reported.
 * Target: the call route serves ≥ 70% of the floor's requests/s.
 * Run: node scripts/run-ts.mjs bench/http.ts   (ROUNDS, SECONDS, CONNECTIONS to tune; ~1 minute)
 */
import type { Result } from "autocannon";
import { resolve } from "node:path";
import { assertClean, checkTarget, loadTarget, toolgateFloorTarget, toolgateOpenAiTarget } from "./lib/http-targets";
import { median } from "./lib/load";
import { snapshot, startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const dir = resolve(".tmp/bench-http");

async function main(): Promise<void> {
  const server = await startDev({ app: snapshot(dir), home: resolve(dir, "home") });
  const floor = toolgateFloorTarget("GET /healthz (floor)", server.url);
  const call = toolgateOpenAiTarget("POST /v1/calls/openai (add)", server.url);
  const samples = new Map([floor, call].map((target) => [target, [] as Result[]]));
  try {
    await waitReady(server);
    for (const target of samples.keys()) await checkTarget(target);
    for (const target of samples.keys()) assertClean(target, await loadTarget(target, 2, CONNECTIONS)); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [target, results] of samples) {
        const result = await loadTarget(target, SECONDS, CONNECTIONS);
        assertClean(target, result);
        results.push(result);
      }
    }
  } finally {
    await stopDev(server);
  }
  const summary = (results: Result[]) => ({
    rps: median(results.map((r) => r.requests.average)),
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
  });
  const [f, c] = [summary(samples.get(floor)!), summary(samples.get(call)!)];
  console.table([
    { route: floor.name, "req/s": Math.round(f.rps), "p50 ms": f.p50, "p99 ms": f.p99 },
    { route: call.name, "req/s": Math.round(c.rps), "p50 ms": c.p50, "p99 ms": c.p99 },
  ]);
  const ratio = c.rps / f.rps;
  console.log(`${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, medians over rounds.`);
  console.log(`add call / floor = ${(ratio * 100).toFixed(1)}% of the floor's requests/s (target ≥ 70%): ${ratio >= 0.7 ? "ok" : "MISSED"}`);
}

await main();
