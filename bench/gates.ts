/**
 * Concurrency gates over HTTP: what a gate adds to one call's latency, against what one bare Durable
 * Object RPC with a write adds, and what { limit: 8 } keeps of the calls/s without a gate.
 *
 * Servers: a no-op tool (add) with no gate, { limit: 1 } and { limit: 8 }, each served by its own
 * `wrangler dev` from a snapshot of the sources (same build, same run); BASE=<git revision> adds that
 * build's two gated variants. Beside them, a Worker with none of toolgate's code (bench/fixtures/platform):
 * a constant answer (/const) and one DO RPC that inserts one row (/write), the least an acquire can cost.
 *
 * Latency, paired: a cycle makes one pair per comparison, in shuffled order: the gated call and an
 * ungated call back to back (which goes first is a coin flip), and /write with /const the same way.
 * A comparison's added latency is the median of its per-pair differences, so load that drifts between
 * pairs cancels; each gated ratio is that median over the DO write's, with a bootstrap interval from
 * resampling blocks of BLOCK (20) consecutive whole cycles (bench/lib/paired.ts). A gated variant's
 * calls are at least GAP_MS apart (default 200, twice LINGER_MS), so each one acquires at the gate: a
 * sparse caller's cost. The DO write is measured twice, and the second over the first is the method's
 * known answer (1.0×).
 * Throughput: CLIENTS concurrent callers for ROUND_MS per variant, ROUNDS times spread over the cycles,
 * in order and then in reverse, with each wrangler dev's CPU time per call from /proc.
 *
 * BURST=n adds a { limit: 1 } server called n times back to back per cycle: after the first call its
 * calls take the slot the isolate keeps, and a burst longer than half of KEEP_MS sends a keep.
 * Run: node scripts/run-ts.mjs bench/gates.ts   (CYCLES, GAP_MS, ROUNDS, BLOCK, BASE, BURST, INSPECTOR=on as in
 * bench/http.ts; the samples are saved to BENCH_DIR/samples.json, and REPORT=<that file> prints them again,
 * with the same BASE, BURST, GAP_MS and ROUNDS, without measuring)
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { median, percentile, ratioOfMedians, type Estimate } from "./lib/paired";
import { snapshotOf } from "./lib/git-snapshot";
import { treeCpuMs } from "./lib/process-cpu";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const CYCLES = Number(process.env.CYCLES ?? 1_000);
const GAP_MS = Number(process.env.GAP_MS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
/** Consecutive cycles resampled together: load shifts over seconds, so neighbouring cycles are alike. */
const BLOCK = Number(process.env.BLOCK ?? 20);
const BASE = process.env.BASE;
/**
 * With BURST=n: a { limit: 1 } server of its own called n times back to back per cycle (its slot
 * kept, with the keep it sends).
 */
const BURST = Number(process.env.BURST ?? 0);
const CLIENTS = 16;
const ROUND_MS = 1_000;
const TARGET_RATIO = 1.2;
const TARGET_RATE = 0.8;

/** One kind of request to one server: its latencies, and its calls/s and CPU per call when it has throughput rounds. */
interface Endpoint {
  name: string;
  server: () => DevServer;
  send: (url: string) => Promise<number>;
  /** Gated: its calls are spaced GAP_MS apart (so a kept slot has gone back). */
  spaced: boolean;
  latencies: number[];
  /** From the end of its previous call to the start of its next. */
  gaps: number[];
  lastEnd?: number;
  rates: number[];
  cpus: number[];
}

/** A measured difference: subject's call minus baseline's, one pair per cycle. */
interface Comparison {
  name: string;
  subject: Endpoint;
  baseline: Endpoint;
  diffs: number[];
  /**
   * Pairs made back to back per cycle: the first acquires, and the cycle's sample is the mean difference of the rest.
   */
  burst?: number;
}

interface ToolServer {
  slug: string;
  concurrency?: { limit: number; maxQueue: number };
  base?: true;
  kept?: true;
  dev?: DevServer;
}

const servers: ToolServer[] = [
  { slug: "none" },
  { slug: "limit-1", concurrency: { limit: 1, maxQueue: 256 } },
  { slug: "limit-8", concurrency: { limit: 8, maxQueue: 256 } },
  ...(BASE
    ? [
        { slug: "base-limit-1", base: true as const, concurrency: { limit: 1, maxQueue: 256 } },
        { slug: "base-limit-8", base: true as const, concurrency: { limit: 8, maxQueue: 256 } },
      ]
    : []),
  ...(BURST > 1 ? [{ slug: "limit-1-kept", kept: true as const, concurrency: { limit: 1, maxQueue: 256 } }] : []),
];
let platformDev: DevServer | undefined;

const endpoint = (name: string, server: () => DevServer, send: Endpoint["send"], spaced: boolean): Endpoint => ({
  name,
  server,
  send,
  spaced,
  latencies: [],
  gaps: [],
  rates: [],
  cpus: [],
});
const devOf = (s: ToolServer) => () => s.dev!;
const toolName = (s: ToolServer) =>
  s.concurrency
    ? `{ limit: ${s.concurrency.limit} }${s.base ? ` at ${BASE}` : ""}${s.kept ? `, ${BURST} calls back to back` : ""}`
    : "no gate";
const tools = servers.map((s) => endpoint(toolName(s), devOf(s), call, s.concurrency !== undefined && !s.kept));
const constant = endpoint(
  "platform: constant",
  () => platformDev!,
  (url) => get(`${url}/const`),
  false,
);
const write = endpoint(
  "platform: one DO write",
  () => platformDev!,
  (url) => get(`${url}/write`),
  false,
);
const endpoints = [...tools, constant, write];

const [noGate, ...gatedAll] = tools;
/** The gated endpoints called sparsely (each call acquires), with throughput rounds. */
const gated = gatedAll.filter((g) => g.spaced);
const doWrite: Comparison = { name: "one DO write − constant", subject: write, baseline: constant, diffs: [] };
/**
 * The known answer: the same comparison again, whose ratio to the first must be about 1 (its interval containing 1).
 */
const doWriteAgain: Comparison = {
  name: "one DO write − constant, again",
  subject: write,
  baseline: constant,
  diffs: [],
};
const comparisons: Comparison[] = [
  ...gatedAll.map((g) => ({
    name: `${g.name} − no gate`,
    subject: g,
    baseline: noGate!,
    diffs: [],
    ...(g.spaced ? {} : { burst: BURST }),
  })),
  doWrite,
  doWriteAgain,
];

const dir = resolve(process.env.BENCH_DIR ?? ".tmp/bench-gates");

/** A tenant with the one tool and this server's gate, as the var a tenant environment would hold. */
function start(s: ToolServer, app: string): Promise<DevServer> {
  const tenant = {
    name: "bench",
    tools: ["add"],
    keys: DEMO_CONFIG.keys,
    ...(s.concurrency ? { policies: { add: { concurrency: s.concurrency } } } : {}),
  };
  const config = writeWranglerConfig(app, resolve(dir, `${s.slug}.json`), {
    TOOLGATE_CONFIG: JSON.stringify(tenant),
    TOOLGATE_DEMO: "false",
  });
  return startDev({ app, home: resolve(dir, s.slug), config });
}

let seq = 0;
async function call(url: string): Promise<number> {
  const id = `b${process.pid}-${++seq}`;
  const body = {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
  };
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !text.includes('{\\"sum\\":3}'))
    throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return ms;
}

async function get(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

/** One call of e, spaced from its previous one when it is gated; its latency. */
async function measure(e: Endpoint): Promise<number> {
  if (e.spaced && e.lastEnd !== undefined) {
    const due = e.lastEnd + GAP_MS - performance.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
  }
  const startAt = performance.now();
  if (e.lastEnd !== undefined) e.gaps.push(startAt - e.lastEnd);
  const ms = await e.send(e.server().url);
  e.lastEnd = performance.now();
  e.latencies.push(ms);
  return ms;
}

/** One pair of c, in a random order: the subject's latency minus the baseline's. */
async function pair(c: Comparison): Promise<number> {
  if (Math.random() < 0.5) {
    const base = await measure(c.baseline);
    return (await measure(c.subject)) - base;
  }
  const subject = await measure(c.subject);
  return subject - (await measure(c.baseline));
}

/** c's sample of this cycle: one pair, or the mean of a burst's pairs after its first. */
async function sample(c: Comparison): Promise<void> {
  if (!c.burst) return void c.diffs.push(await pair(c));
  await pair(c);
  let sum = 0;
  for (let i = 1; i < c.burst; i++) sum += await pair(c);
  c.diffs.push(sum / (c.burst - 1));
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function throughput(e: Endpoint): Promise<void> {
  const pid = e.server().process.pid!;
  const cpuBefore = treeCpuMs(pid);
  const end = performance.now() + ROUND_MS;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        await e.send(e.server().url);
        done++;
      }
    }),
  );
  e.cpus.push(((treeCpuMs(pid) - cpuBefore) * 1000) / done);
  e.rates.push(done / (ROUND_MS / 1000));
}

const ms = (e: Estimate) => `${e.value.toFixed(2)} (${e.low.toFixed(2)}–${e.high.toFixed(2)})`;
const times = (e: Estimate) => `${e.value.toFixed(2)}× (${e.low.toFixed(2)}–${e.high.toFixed(2)})`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

function verdict(e: Estimate, target: number): string {
  if (e.high <= target) return "met";
  if (e.low > target) return "MISSED";
  return "not settled (interval spans the target)";
}

function report(loadAtStart: string, loadAtEnd: string): void {
  const throughputs = [noGate!, ...gated, constant];
  console.table(
    endpoints.map((e) => ({
      endpoint: e.name,
      calls: e.latencies.length,
      "p50 ms": median(e.latencies).toFixed(2),
      "p99 ms": percentile(e.latencies, 99).toFixed(2),
      "calls/s": throughputs.includes(e) ? Math.round(median(e.rates)) : "",
      "CPU µs/call": throughputs.includes(e) ? Math.round(median(e.cpus)) : "",
    })),
  );
  const estimates = comparisons.map((c) => ({ c, est: ratioOfMedians(c.diffs, doWrite.diffs, { block: BLOCK }) }));
  console.table(
    estimates.map(({ c, est }) => ({
      comparison: c.name,
      "adds ms, median of pairs (95%)": ms(est.numerator),
      "÷ one DO write (95%)": c === doWrite ? "—" : times(est.ratio),
    })),
  );
  console.log(
    `wrangler dev ${INSPECTOR ? "with" : "without"} its inspector; ${doWrite.diffs.length} cycles (one pair per comparison; intervals resample blocks of ${BLOCK}), gated calls ≥ ${GAP_MS} ms apart; ${ROUNDS} rounds of ${ROUND_MS} ms × ${CLIENTS} clients; load average ${loadAtStart} at the start, ${loadAtEnd} at the end.`,
  );
  const gaps = gated.flatMap((g) => g.gaps);
  console.log(
    `between two calls of one gated variant: median ${median(gaps).toFixed(0)} ms, p10 ${percentile(gaps, 10).toFixed(0)}, p90 ${percentile(gaps, 90).toFixed(0)}.`,
  );
  const check = estimates.find(({ c }) => c === doWriteAgain)!.est.ratio;
  console.log(
    `method check, one DO write against itself: ${times(check)}: ${check.low <= 1 && 1 <= check.high ? "ok" : "FAILED (the interval misses 1)"}`,
  );
  for (const { c, est } of estimates.filter(({ c }) => gatedAll.includes(c.subject))) {
    console.log(
      `${c.subject.name} adds ${times(est.ratio)} one DO write to a call (target ≤ ${TARGET_RATIO}×): ${verdict(est.ratio, TARGET_RATIO)}`,
    );
  }
  for (const g of gated.filter((g) => g.name.startsWith("{ limit: 8 }"))) {
    const perRound = g.rates.map((r, i) => r / noGate!.rates[i]!);
    const ratio = median(g.rates) / median(noGate!.rates);
    console.log(
      `${g.name} sustains ${Math.round(median(g.rates))} calls/s = ${(ratio * 100).toFixed(0)}% of ${Math.round(median(noGate!.rates))} without a gate; median of rounds ${(median(perRound) * 100).toFixed(0)}% (rounds ${perRound.map((r) => (r * 100).toFixed(0)).join(" ")}); CPU per call ${(median(g.cpus) / median(noGate!.cpus)).toFixed(2)}× (target ≥ ${TARGET_RATE * 100}%): ${median(perRound) >= TARGET_RATE ? "ok" : "MISSED"}`,
    );
  }
}

/** Every sample of the run, so its figures can be computed again (REPORT=<file> prints them without measuring). */
interface Samples {
  loadAtStart: string;
  loadAtEnd: string;
  endpoints: Array<Pick<Endpoint, "latencies" | "gaps" | "rates" | "cpus">>;
  diffs: number[][];
}

async function main(): Promise<void> {
  if (process.env.REPORT) {
    const saved = JSON.parse(readFileSync(process.env.REPORT, "utf8")) as Samples;
    for (const [i, e] of saved.endpoints.entries()) Object.assign(endpoints[i]!, e);
    for (const [i, d] of saved.diffs.entries()) comparisons[i]!.diffs = d;
    return report(`${saved.loadAtStart}`, saved.loadAtEnd);
  }
  const loadAtStart = load();
  const app = snapshot(dir);
  const baseApp = BASE ? snapshotOf(BASE, resolve(dir, "base")) : app;
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  try {
    for (const s of servers) s.dev = await start(s, s.base ? baseApp : app);
    platformDev = await startDev({ app: platformApp, home: resolve(dir, "platform-home"), readyPath: "/const" });
    await Promise.all([...servers.map((s) => s.dev!), platformDev].map((d) => waitReady(d)));
    for (const e of endpoints) for (let i = 0; i < 100; i++) await e.send(e.server().url); // warm up isolates and DOs
    const throughputs = [noGate!, ...gated, constant];
    const roundEvery = Math.max(1, Math.floor(CYCLES / ROUNDS));
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (const c of shuffled(comparisons)) await sample(c);
      if ((cycle + 1) % roundEvery === 0 && tools[0]!.rates.length < ROUNDS) {
        // In order, then in reverse, so no variant always runs right after the same one.
        const round = tools[0]!.rates.length;
        for (const e of round % 2 === 0 ? throughputs : [...throughputs].reverse()) await throughput(e);
        // The next gated call still comes GAP_MS after the round: by then its kept slots have gone back.
        for (const e of endpoints) e.lastEnd = performance.now();
      }
    }
  } finally {
    await Promise.all([...servers.map((s) => s.dev), platformDev].map((d) => stopDev(d)));
  }
  const samples: Samples = {
    loadAtStart,
    loadAtEnd: load(),
    endpoints: endpoints.map(({ latencies, gaps, rates, cpus }) => ({ latencies, gaps, rates, cpus })),
    diffs: comparisons.map((c) => c.diffs),
  };
  writeFileSync(resolve(dir, "samples.json"), JSON.stringify(samples));
  report(loadAtStart, samples.loadAtEnd);
  console.log(`samples: ${resolve(dir, "samples.json")}`);
}

await main();
