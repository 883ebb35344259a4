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
import { resolve } from "node:path";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const SEQUENTIAL = 100;
const CLIENTS = 16;
const ROUND_MS = 1_000;

interface Variant {
  name: string;
  /** Also names its state and config under `dir`. */
  slug: string;
  concurrency?: { limit: number; maxQueue?: number };
  server?: DevServer;
  latencies: number[];
  rates: number[];
}

const variants: Variant[] = [
  { name: "no gate", slug: "none", latencies: [], rates: [] },
  { name: "{ limit: 1 }", slug: "limit-1", concurrency: { limit: 1, maxQueue: 256 }, latencies: [], rates: [] },
  { name: "{ limit: 8 }", slug: "limit-8", concurrency: { limit: 8, maxQueue: 256 }, latencies: [], rates: [] },
];

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

async function throughput(url: string): Promise<number> {
  const end = performance.now() + ROUND_MS;
  let done = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < end) {
      await call(url);
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
  const app = snapshot(dir);
  const url = (v: Variant) => v.server!.url;
  try {
    for (const v of variants) v.server = await start(v, app);
    await Promise.all(variants.map((v) => waitReady(v.server!)));
    for (const v of variants) for (let i = 0; i < 200; i++) await call(url(v)); // warm up isolates and DOs
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate call by call, so each variant's samples see the same background load.
      for (let i = 0; i < SEQUENTIAL; i++) for (const v of variants) v.latencies.push(await call(url(v)));
      for (const v of variants) v.rates.push(await throughput(url(v)));
    }
  } finally {
    await Promise.all(variants.map((v) => stopDev(v.server)));
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
