/**
 * The HTTP path against fixture routes that do the same platform work (bench/fixtures/platform, a
 * Worker with none of toolgate's code), measured in the same run, alternating rounds (the order
 * reverses every other round) so background load hits all alike; medians over rounds of requests/s
 * and of CPU time per request (/proc: the whole wrangler dev process tree of each server).
 *
 * Each fixture route runs twice: on its own, and "routed", behind the static-assets router as
 * toolgate's wrangler.toml ([assets] run_worker_first) puts every API request
 * (bench/fixtures/platform/wrangler-assets.toml).
 *
 *   whoami        GET /v1/whoami (key check, no tool)        vs  /const, the same request headers
 *   write first   an `echo` call made not read-only: its id is claimed before it runs and its record
 *                 stored before the answer                   vs  /log-write (one log line, one DO write)
 *                                                             and, routed, /log-write-write (two writes in turn)
 *   read-only     an `add` call of a tenant whose read-only records are written after the answer
 *                 (readOnlyRecords: "after-answer")          vs  /log-batch (log, answer, batched write)
 *
 * Targets: whoami adds ≤ 10% of /const's CPU per request; the write-first call ≥ 90% of /log-write;
 * the read-only call ≥ 90% of /log-batch (req/s and CPU per request both printed).
 * Run: node scripts/run-ts.mjs bench/http.ts   (ROUNDS, SECONDS, CONNECTIONS to tune; INSPECTOR=on to
 * measure wrangler dev with its debugger attached, as `npx wrangler dev` runs it; BASE=<git ref> adds that
 * build's two calls, same tenant, to the same rounds; ONE_SHARD=on adds this build's read-only call
 * with LEDGER_SHARDS=1, one ledger object as the fixture has, where the demo's default is 4; ~3
 * minutes, ~4 with BASE)
 */
import { cpSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import {
  ADD_CALL,
  AUTH,
  ECHO_CALL,
  getTarget,
  sameRequestTarget,
  toolgateOpenAiTarget,
  type Target,
} from "./lib/http-targets";
import { median } from "./lib/load";
import { alternateRounds, type Measured } from "./lib/rounds";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshotOf } from "./lib/git-snapshot";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const dir = resolve(".tmp/bench-http");
const BASE = process.env.BASE;
const ONE_SHARD = process.env.ONE_SHARD === "on";

/**
 * The demo tenant, with `echo` made not read-only (so its calls claim first) and read-only
 * records written after the answer.
 */
const BENCH_CONFIG = { ...DEMO_CONFIG, policies: { echo: { readOnly: false } }, readOnlyRecords: "after-answer" };

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const platformApp = resolve(dir, "platform");
  cpSync(resolve("bench/fixtures/platform"), platformApp, { recursive: true });
  const app = snapshot(dir);
  const config = writeWranglerConfig(app, resolve(dir, "toolgate.json"), {
    TOOLGATE_DEMO: "false",
    TOOLGATE_CONFIG: JSON.stringify(BENCH_CONFIG),
  });
  const toolgate = await startDev({ app, home: resolve(dir, "home"), config });
  const platform = await startDev({ app: platformApp, home: resolve(dir, "platform-home"), readyPath: "/const" });
  // The same fixture behind the static-assets router, as toolgate's wrangler.toml puts every API request.
  const routed = await startDev({
    app: platformApp,
    home: resolve(dir, "routed-home"),
    config: resolve(platformApp, "wrangler-assets.toml"),
  });
  const servers = [toolgate, platform, routed];
  let base: DevServer | undefined;
  if (BASE) {
    const baseApp = snapshotOf(BASE, resolve(dir, "base"));
    const baseConfig = writeWranglerConfig(baseApp, resolve(dir, "base-toolgate.json"), {
      TOOLGATE_DEMO: "false",
      TOOLGATE_CONFIG: JSON.stringify(BENCH_CONFIG),
    });
    servers.push((base = await startDev({ app: baseApp, home: resolve(dir, "base-home"), config: baseConfig })));
  }
  let oneShard: DevServer | undefined;
  if (ONE_SHARD) {
    const oneApp = snapshot(resolve(dir, "one-shard"));
    const oneConfig = writeWranglerConfig(oneApp, resolve(dir, "one-shard-toolgate.json"), {
      TOOLGATE_DEMO: "false",
      TOOLGATE_CONFIG: JSON.stringify(BENCH_CONFIG),
      LEDGER_SHARDS: "1",
    });
    servers.push((oneShard = await startDev({ app: oneApp, home: resolve(dir, "one-shard-home"), config: oneConfig })));
  }
  const writeFirst = toolgateOpenAiTarget("toolgate: echo call, write first", toolgate.url, 1, ECHO_CALL);
  const readOnly = toolgateOpenAiTarget("toolgate: add call, read-only", toolgate.url, 1, ADD_CALL);
  const targets: [Target, DevServer][] = [
    [getTarget("toolgate: GET /healthz", toolgate.url, "/healthz"), toolgate],
    [getTarget("toolgate: GET /v1/whoami", toolgate.url, "/v1/whoami", AUTH), toolgate],
    [getTarget("platform: /const", platform.url, "/const", AUTH), platform],
    [getTarget("platform, routed: /const", routed.url, "/const", AUTH), routed],
    [writeFirst, toolgate],
    [sameRequestTarget("platform: /log-write", platform.url, "/log-write", writeFirst), platform],
    [sameRequestTarget("platform, routed: /log-write", routed.url, "/log-write", writeFirst), routed],
    [sameRequestTarget("platform, routed: /log-write-write", routed.url, "/log-write-write", writeFirst), routed],
    [readOnly, toolgate],
    [sameRequestTarget("platform: /log-batch", platform.url, "/log-batch", readOnly), platform],
    [sameRequestTarget("platform, routed: /log-batch", routed.url, "/log-batch", readOnly), routed],
  ];
  if (base) {
    targets.push([toolgateOpenAiTarget(`base ${BASE}: echo call, write first`, base.url, 1, ECHO_CALL), base]);
    targets.push([toolgateOpenAiTarget(`base ${BASE}: add call, read-only`, base.url, 1, ADD_CALL), base]);
  }
  if (oneShard)
    targets.push([
      toolgateOpenAiTarget("toolgate, LEDGER_SHARDS=1: add call, read-only", oneShard.url, 1, ADD_CALL),
      oneShard,
    ]);
  const measured: Measured[] = targets.map(([target, server]) => ({ target, server, results: [], cpuUs: [] }));
  let loads: number[];
  try {
    // One at a time: each gets the whole timeout after the one before
    for (const server of servers) await waitReady(server);
    loads = await alternateRounds(measured, ROUNDS, SECONDS, CONNECTIONS);
  } finally {
    await Promise.all(servers.map(stopDev));
  }
  const rps = (m: Measured) => median(m.results.map((r) => r.requests.average));
  const cpu = (m: Measured) => median(m.cpuUs);
  console.table(
    measured.map((m) => ({
      route: m.target.name,
      "req/s": Math.round(rps(m)),
      "p50 ms": median(m.results.map((r) => r.latency.p50)),
      "p99 ms": median(m.results.map((r) => r.latency.p99)),
      "CPU µs/req": Math.round(cpu(m)),
      "CPU µs/req by round": m.cpuUs.map((us) => Math.round(us)).join(" "),
    })),
  );
  type Eleven = [
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
    Measured,
  ];
  const [
    ,
    whoami,
    constant,
    routedConstant,
    echo,
    logWrite,
    routedLogWrite,
    routedLogWriteWrite,
    add,
    logBatch,
    routedLogBatch,
  ] = measured as Eleven;
  console.log(
    `wrangler dev ${INSPECTOR ? "with" : "without"} its inspector; ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per route, medians over rounds; load average ${loads.map((l) => l.toFixed(1)).join(" → ")}.`,
  );
  console.log(
    `"routed": the fixture behind the static-assets router, as toolgate's wrangler.toml ([assets] run_worker_first) puts every API request.`,
  );
  for (const base of [constant, routedConstant]) {
    const added = (cpu(whoami) - cpu(base)) / cpu(base);
    verdict(
      `GET /v1/whoami adds ${Math.round(cpu(whoami) - cpu(base))} µs CPU/request over ${base.target.name} = ${pct(added)} of its ${Math.round(cpu(base))} µs (target ≤ 10%)`,
      added <= 0.1,
    );
  }
  const versus = (name: string, m: Measured, fixture: Measured, target?: number) => {
    const byRps = rps(m) / rps(fixture);
    const byCpu = cpu(fixture) / cpu(m);
    const line = `${name}: ${pct(byRps)} of ${fixture.target.name}'s req/s, ${pct(byCpu)} by CPU/request`;
    if (target === undefined) console.log(line);
    else verdict(`${line} (target ≥ ${pct(target)})`, byRps >= target && byCpu >= target);
  };
  for (const fixture of [logWrite, routedLogWrite]) versus("write-first call", echo, fixture, 0.9);
  versus("write-first call", echo, routedLogWriteWrite);
  for (const fixture of [logBatch, routedLogBatch]) versus("read-only call", add, fixture, 0.9);
  const [baseEcho, baseAdd] = base ? measured.slice(11, 13) : [];
  const one = oneShard ? measured.at(-1) : undefined;
  if (one) {
    versus("read-only call, LEDGER_SHARDS=1", one, routedLogBatch);
    console.log(
      `read-only call, LEDGER_SHARDS=1 against the default shard count: CPU/request ${Math.round(cpu(one))} µs vs ${Math.round(cpu(add))} µs (${pct(cpu(one) / cpu(add) - 1)})`,
    );
  }
  for (const [name, m, was] of [
    ["write-first call", echo, baseEcho],
    ["read-only call", add, baseAdd],
  ] as const) {
    if (!was) continue;
    console.log(
      `${name} against ${BASE}: CPU/request ${Math.round(cpu(m))} µs vs ${Math.round(cpu(was))} µs (${pct(cpu(m) / cpu(was) - 1)}), req/s ${pct(rps(m) / rps(was))} of base's`,
    );
    for (const fixture of [routedLogBatch, routedLogWrite])
      if ((fixture === routedLogBatch) === (m === add)) versus(`${name}, base`, was, fixture);
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const verdict = (line: string, ok: boolean) => console.log(`${line}: ${ok ? "ok" : "MISSED"}`);

await main();
