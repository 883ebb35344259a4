/**
 * The read-only call of several builds side by side, beside the routed `/log-batch` of the platform
 * fixture (see bench/http.ts): each build is a git ref (`.` the working tree; `ref+N` runs it with
 * LEDGER_SHARDS=N), all under `wrangler dev` in the same run, in rounds alternating in order and in
 * reverse. Prints each one's median CPU per request (the whole process tree, /proc), its ratio to the
 * fixture's, and per round its CPU ÷ the first build's (naming one ref twice gives the A/A spread).
 * Run: VARIANTS=main,.,main,. node scripts/run-ts.mjs bench/http-read-only.ts   (ROUNDS, SECONDS)
 */
import { cpSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import { ADD_CALL, sameRequestTarget, toolgateOpenAiTarget } from "./lib/http-targets";
import { median } from "./lib/load";
import { alternateRounds, type Measured } from "./lib/rounds";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshotOf } from "./lib/git-snapshot";
import { snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = 16;
const dir = resolve(".tmp/bench-http-read-only");
const VARIANTS = (process.env.VARIANTS ?? "main,.").split(",");
/** As bench/http.ts: read-only records written after the answer. */
const BENCH_CONFIG = { ...DEMO_CONFIG, policies: { echo: { readOnly: false } }, readOnlyRecords: "after-answer" };

async function startBuild(variant: string, at: string): Promise<DevServer> {
  const [ref = ".", shards] = variant.split("+");
  const app = ref === "." ? snapshot(at) : snapshotOf(ref, at);
  const vars = {
    TOOLGATE_DEMO: "false",
    TOOLGATE_CONFIG: JSON.stringify(BENCH_CONFIG),
    ...(shards ? { LEDGER_SHARDS: shards } : {}),
  };
  return startDev({
    app,
    home: resolve(at, "home"),
    config: writeWranglerConfig(app, resolve(at, "toolgate.json"), vars),
  });
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  const routed = await startDev({
    app: platformApp,
    home: resolve(dir, "routed-home"),
    config: resolve(platformApp, "wrangler-assets.toml"),
  });
  const builds: DevServer[] = [];
  for (const [i, variant] of VARIANTS.entries()) builds.push(await startBuild(variant, resolve(dir, `build-${i}`)));
  const calls = builds.map((server, i) => toolgateOpenAiTarget(VARIANTS[i]!, server.url, 1, ADD_CALL));
  const measured: Measured[] = [
    {
      target: sameRequestTarget("platform, routed: /log-batch", routed.url, "/log-batch", calls[0]!),
      server: routed,
      results: [],
      cpuUs: [],
    },
    ...calls.map((target, i) => ({ target, server: builds[i]!, results: [], cpuUs: [] })),
  ];
  let loads: number[];
  try {
    for (const server of [routed, ...builds]) await waitReady(server);
    loads = await alternateRounds(measured, ROUNDS, SECONDS, CONNECTIONS);
  } finally {
    await Promise.all([routed, ...builds].map(stopDev));
  }
  const [fixture, first] = measured as [Measured, Measured];
  for (const m of measured) {
    const cpu = median(m.cpuUs);
    console.log(
      `${m.target.name}: ${Math.round(cpu)} µs CPU/request (${m.cpuUs.map(Math.round).join(" ")}), fixture ÷ it ${((median(fixture.cpuUs) / cpu) * 100).toFixed(1)}%`,
    );
  }
  for (const m of measured.slice(2)) {
    const ratios = m.cpuUs.map((us, i) => us / first.cpuUs[i]!).sort((a, b) => a - b);
    console.log(
      `${m.target.name} ÷ ${first.target.name}, per round: median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(" ")})`,
    );
  }
  console.log(
    `${ROUNDS} × ${SECONDS} s per build, ${CONNECTIONS} connections; load average ${loads.map((l) => l.toFixed(1)).join(" → ")}.`,
  );
}

await main();
