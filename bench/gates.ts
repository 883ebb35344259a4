/**
 * Concurrency gates over HTTP: a no-op tool (add) with no gate, { limit: 1 } and { limit: 8 }, each
 * served by its own `wrangler dev` (same build, same machine, same run), measured in turn (call by
 * call for latency, round by round for throughput) so background load hits all three alike.
 *   latency: sequential calls, p50 / p99 per call (the gate never queues here: its cost is the
 *            acquire round trip to the gate Durable Object, none when the isolate still keeps a slot);
 *   throughput: CLIENTS concurrent callers for ROUND_MS, calls/s.
 * Beside them, a Worker with none of toolgate's code (bench/fixtures/platform) measures the same way
 * what the platform charges for a constant answer and for one Durable Object RPC that writes one row,
 * the least a gate's acquire can cost (one synchronous SQL check-and-write in the gate's object).
 * Targets, as ratios within the run: the gate adds to p50 at most 1.2× what one bare Durable Object
 * RPC with a write adds to the fixture's constant answer; { limit: 8 } sustains ≥ 80% of the calls/s
 * without a gate.
 * Run: node scripts/run-ts.mjs bench/gates.ts   (ROUNDS to tune; INSPECTOR=on as in bench/http.ts;
 * BASE=<git revision> adds that build's two gated variants to the same run, for an A/B; the ratios
 * are printed per round too, and the gap between two sequential calls of one variant, against which
 * a kept slot's linger matters)
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { treeCpuMs } from "./lib/process-cpu";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { INSPECTOR, READY_PATH, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const BASE = process.env.BASE;
const SEQUENTIAL = 100;
const CLIENTS = 16;
const ROUND_MS = 1_000;

interface Variant {
  name: string;
  /** Also names its state and config under `dir`. */
  slug: string;
  concurrency?: { limit: number; maxQueue?: number };
  /** Served from the BASE build instead of this checkout's. */
  base?: true;
  server?: DevServer;
  latencies: number[];
  /** Per round: its latencies (for per-round ratios, which show how steady a figure is). */
  roundLatencies: number[][];
  /** Time from the end of this variant's previous sequential call to the start of its next (the other variants' calls). */
  gaps: number[];
  lastEnd?: number;
  rates: number[];
  /** CPU time of its wrangler dev (Node + workerd) per call in the throughput rounds, µs. */
  cpus: number[];
  /** One request: its latency in ms (checked). */
  send: (url: string) => Promise<number>;
}

const variants: Variant[] = [
  { name: "no gate", slug: "none", latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: call },
  { name: "{ limit: 1 }", slug: "limit-1", concurrency: { limit: 1, maxQueue: 256 }, latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: call },
  { name: "{ limit: 8 }", slug: "limit-8", concurrency: { limit: 8, maxQueue: 256 }, latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: call },
  ...(BASE
    ? [
        { name: `{ limit: 1 } at ${BASE}`, slug: "base-limit-1", base: true as const, concurrency: { limit: 1, maxQueue: 256 }, latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: call },
        { name: `{ limit: 8 } at ${BASE}`, slug: "base-limit-8", base: true as const, concurrency: { limit: 8, maxQueue: 256 }, latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: call },
      ]
    : []),
];
/** The platform's own costs, measured the same way (served by one wrangler dev of the fixture). */
const platform: Variant[] = [
  { name: "platform: constant", slug: "platform", latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: (url) => get(`${url}/const`) },
  { name: "platform: one DO write", slug: "platform", latencies: [], roundLatencies: [], gaps: [], rates: [], cpus: [], send: (url) => get(`${url}/write`) },
];
const all = [...variants, ...platform];

const dir = resolve(process.env.BENCH_DIR ?? ".tmp/bench-gates");

/** A tenant with the one tool and this variant's gate, as the var a tenant environment would hold. */
function start(v: Variant, app: string): Promise<DevServer> {
  const tenant = { name: "bench", tools: ["add"], keys: DEMO_CONFIG.keys, ...(v.concurrency ? { policies: { add: { concurrency: v.concurrency } } } : {}) };
  const config = writeWranglerConfig(app, resolve(dir, `${v.slug}.json`), { TOOLGATE_CONFIG: JSON.stringify(tenant), TOOLGATE_DEMO: "false" });
  return startDev({ app, home: resolve(dir, v.slug), config });
}

let seq = 0;
async function call(url: string): Promise<number> {
  const id = `b${process.pid}-${++seq}`;
  const body = { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] };
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !text.includes('{\\"sum\\":3}')) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return ms;
}

async function get(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

async function throughput(v: Variant): Promise<number> {
  const cpuBefore = treeCpuMs(v.server!.process.pid!);
  const end = performance.now() + ROUND_MS;
  let done = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < end) {
      await v.send(url(v));
      done++;
    }
  }));
  v.cpus.push(((treeCpuMs(v.server!.process.pid!) - cpuBefore) * 1000) / done);
  return done / (ROUND_MS / 1000);
}

const url = (v: Variant) => v.server!.url;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const median = (values: number[]) => pct(values, 50);

const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(" ");

/** The BASE revision's sources, laid out as snapshot() lays out the checkout's (its tool catalog is generated, so it comes from `app`). */
function baseSnapshot(rev: string, app: string): string {
  const base = resolve(dir, "base-app");
  rmSync(base, { recursive: true, force: true });
  mkdirSync(resolve(base, "dist/web"), { recursive: true });
  const tar = execFileSync("git", ["archive", "--format=tar", rev, "src", "worker", "tools", "package.json", "wrangler.toml", "tsconfig.json", "tsconfig.base.json"], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", base], { input: tar });
  cpSync(resolve(app, "worker/catalog.generated.ts"), resolve(base, "worker/catalog.generated.ts"));
  writeFileSync(resolve(base, "dist/web", READY_PATH.slice(1)), "ready\n");
  symlinkSync(resolve("node_modules"), resolve(base, "node_modules"));
  return base;
}

async function main(): Promise<void> {
  const app = snapshot(dir);
  const baseApp = BASE ? baseSnapshot(BASE, app) : app;
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  try {
    for (const v of variants) v.server = await start(v, v.base ? baseApp : app);
    const platformServer = await startDev({ app: platformApp, home: resolve(dir, "platform-home"), readyPath: "/const" });
    for (const v of platform) v.server = platformServer;
    await Promise.all(all.map((v) => waitReady(v.server!)));
    for (const v of all) for (let i = 0; i < 200; i++) await v.send(url(v)); // warm up isolates and DOs
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of all) {
        v.roundLatencies.push([]);
        delete v.lastEnd;
      }
      // Alternate call by call, so each variant's samples see the same background load.
      for (let i = 0; i < SEQUENTIAL; i++) {
        for (const v of all) {
          const start = performance.now();
          if (v.lastEnd !== undefined) v.gaps.push(start - v.lastEnd);
          const ms = await v.send(url(v));
          v.lastEnd = performance.now();
          v.latencies.push(ms);
          v.roundLatencies.at(-1)!.push(ms);
        }
      }
      // Throughput: in order, then in reverse, so no variant always runs right after the same one.
      for (const v of round % 2 === 0 ? all : [...all].reverse()) v.rates.push(await throughput(v));
    }
  } finally {
    await Promise.all([...variants, platform[0]!].map((v) => stopDev(v.server)));
  }
  const base = median(variants[0]!.latencies);
  const platformBase = median(platform[0]!.latencies);
  console.table(
    all.map((v) => ({
      variant: v.name,
      "p50 ms": median(v.latencies).toFixed(2),
      "p99 ms": pct(v.latencies, 99).toFixed(2),
      "adds (p50) ms": (median(v.latencies) - (platform.includes(v) ? platformBase : base)).toFixed(2),
      [`req/s (${CLIENTS} clients)`]: Math.round(median(v.rates)),
      "CPU µs/req": Math.round(median(v.cpus)),
    })),
  );
  const rate0 = median(variants[0]!.rates);
  const cpu0 = median(variants[0]!.cpus);
  const oneWrite = median(platform[1]!.latencies) - platformBase;
  // Per round: the variant's added p50 over that round's DO write, and its calls/s over that round's no gate.
  const roundAdds = (v: Variant, r: number) =>
    (median(v.roundLatencies[r]!) - median(variants[0]!.roundLatencies[r]!)) / (median(platform[1]!.roundLatencies[r]!) - median(platform[0]!.roundLatencies[r]!));
  const roundRate = (v: Variant, r: number) => v.rates[r]! / variants[0]!.rates[r]!;
  const rounds = Array.from({ length: ROUNDS }, (_, r) => r);
  console.log(`wrangler dev ${INSPECTOR ? "with" : "without"} its inspector; ${ROUNDS} rounds of ${SEQUENTIAL} sequential calls and ${ROUND_MS} ms of ${CLIENTS} clients; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} (at the end; ${loadAtStart} at the start).`);
  console.log(`platform: one Durable Object RPC that writes one row adds ${oneWrite.toFixed(2)} ms to p50; a constant answer sustains ${Math.round(median(platform[0]!.rates))} req/s.`);
  console.log(`between two sequential calls of one variant (the other variants' calls): median ${median(variants[1]!.gaps).toFixed(0)} ms, p10 ${pct(variants[1]!.gaps, 10).toFixed(0)}, p90 ${pct(variants[1]!.gaps, 90).toFixed(0)}.`);
  console.table(
    variants.slice(1).map((v) => ({
      variant: v.name,
      "adds ÷ one DO write": ((median(v.latencies) - base) / oneWrite).toFixed(2),
      "per round": rounds.map((r) => roundAdds(v, r).toFixed(2)).join(" "),
      "calls/s ÷ no gate": `${((median(v.rates) / rate0) * 100).toFixed(0)}%`,
      "per round ": rounds.map((r) => `${(roundRate(v, r) * 100).toFixed(0)}%`).join(" "),
      "median of rounds": `${(median(rounds.map((r) => roundRate(v, r))) * 100).toFixed(0)}%`,
      "CPU ÷ no gate": (median(v.cpus) / cpu0).toFixed(2),
    })),
  );
  const limit1 = (median(variants[1]!.latencies) - base) / oneWrite;
  const limit8 = (median(variants[2]!.latencies) - base) / oneWrite;
  const rateRatio = median(variants[2]!.rates) / rate0;
  console.log(`{ limit: 1 } adds ${limit1.toFixed(2)}× one DO write to p50, { limit: 8 } ${limit8.toFixed(2)}× (target ≤ 1.2×): ${Math.max(limit1, limit8) <= 1.2 ? "ok" : "MISSED"}`);
  console.log(`{ limit: 8 } sustains ${Math.round(median(variants[2]!.rates))} calls/s = ${(rateRatio * 100).toFixed(0)}% of ${Math.round(rate0)} without a gate (target ≥ 80%): ${rateRatio >= 0.8 ? "ok" : "MISSED"}`);
}

await main();
