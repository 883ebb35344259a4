/**
 * A recorded call at the cost of its work (issue 31): toolgate's recorded `add` call against fixtures
 * doing exactly the platform work it needs, and against a peer MCP Worker built with Cloudflare's
 * `agents` package, all under `wrangler dev` with the same flags, in the same run, rounds interleaved
 * (in order, then in reverse), 16 connections. Medians over rounds of req/s, p50/p99 and CPU per
 * request (the whole `wrangler dev` process tree of each server, /proc), and medians of the per-round
 * ratios to the fixtures.
 *
 *   toolgate, recorded        `add` (read-only), its record stored before the answer (one awaited
 *                             ledger write): /mcp tools/call as 2026-07-28 and in a 2025-11-25
 *                             session, and POST /v1/calls/openai
 *   toolgate, after-answer    the same /mcp 2026-07-28 call of a tenant whose read-only records are
 *                             written after the answer (readOnlyRecords: "after-answer"), with the
 *                             demo's 4 ledger shards and with one (LEDGER_SHARDS=1)
 *   without the router        the recorded and after-answer /mcp calls of a build without `[assets]` (no
 *                             static-assets router in front of the Worker; a bench variant)
 *   agents                    `createMcpHandler` (agents/mcp) with a new McpServer per request and zod
 *                             (bench/fixtures/agents-mcp): no auth, no record
 *   call floor                bench/fixtures/call-floor, the same JSON-RPC body: parse + valibot + add
 *                             (/rpc), + one awaited DO insert of the call's row (/rpc-write), + one log
 *                             line shaped like toolgate's (/rpc-write-log), the same behind the
 *                             static-assets router toolgate's wrangler.toml puts in front of it (routed),
 *                             and a log line with the row batched after the answer (/rpc-log-batch, also
 *                             routed); and
 *                             the log line with the row and two events written as toolgate's ledger
 *                             writes them (its table's six indexes; /rpc-ledger-log), alone and routed
 *
 * Targets: a recorded call's CPU/request ≤ 1.3× /rpc-write-log's and req/s ≥ 0.9× its; the read-only
 * call recorded after its answer: req/s ≥ the agents handler's.
 * Run: node scripts/run-ts.mjs bench/http-recorded.ts   (ROUNDS=6, SECONDS=3, CONNECTIONS=16;
 * INSPECTOR=on runs every server through the CLI with its inspector, which relays each log line;
 * BASE=<git ref> adds that build's two /mcp 2026 calls to the same rounds; ONLY=<regular expression> measures
 * only the targets it matches (every server still starts); OUT=<file> writes the
 * measurements as JSON; about 5 minutes, 7 with BASE)
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import { AUTH, modernMcpTarget, toolgateMcpTarget, toolgateOpenAiTarget, type Target } from "./lib/http-targets";
import { median } from "./lib/load";
import { alternateRounds, type Measured } from "./lib/rounds";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshotOf } from "./lib/git-snapshot";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 6);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const BASE = process.env.BASE;
/** Only the targets whose names match (a regular expression): an A/B of a few in shorter runs. */
const ONLY = new RegExp(process.env.ONLY ?? "");
const dir = resolve(".tmp/bench-http-recorded");

/** The demo's tools, its records stored before the answer (the default) or after it. */
const RECORDED = { ...DEMO_CONFIG, readOnlyRecords: "before-answer" };
const AFTER_ANSWER = { ...DEMO_CONFIG, readOnlyRecords: "after-answer" };

/** A copy of a fixture Worker under `dir`, resolving its imports from `modules` (a node_modules folder). */
function fixture(name: string, modules: string): string {
  const app = resolve(dir, name);
  rmSync(app, { recursive: true, force: true });
  cpSync(resolve("bench/fixtures", name), app, { recursive: true });
  symlinkSync(modules, resolve(app, "node_modules"));
  return app;
}

/**
 * toolgate from a copy of `source` (each wrangler dev builds in its own), the demo's tools under `config`,
 * with `vars` beside them.
 */
function toolgate(
  source: string,
  name: string,
  config: object,
  vars: Record<string, string> = {},
  options: { assets?: boolean } = {},
): Promise<DevServer> {
  const app = resolve(dir, `${name}-app`);
  rmSync(app, { recursive: true, force: true });
  cpSync(source, app, { recursive: true, verbatimSymlinks: true });
  const vared = { TOOLGATE_DEMO: "false", TOOLGATE_CONFIG: JSON.stringify(config), ...vars };
  const file = writeWranglerConfig(app, resolve(dir, `${name}.json`), vared, undefined, options);
  // Without assets there is no ready file: the Worker answers /healthz itself.
  const ready = options.assets === false ? { readyPath: "/healthz" } : {};
  return startDev({ app, home: resolve(dir, `${name}-home`), config: file, ...ready });
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const app = snapshot(resolve(dir, "toolgate"));
  const floorApp = fixture("call-floor", resolve("node_modules"));
  const agentsApp = fixture("agents-mcp", resolve("bench/node_modules"));
  const recorded = await toolgate(app, "recorded", RECORDED);
  const after = await toolgate(app, "after-answer", AFTER_ANSWER);
  const afterOne = await toolgate(app, "after-answer-one-shard", AFTER_ANSWER, { LEDGER_SHARDS: "1" });
  const floor = await startDev({ app: floorApp, home: resolve(dir, "floor-home"), readyPath: "/bench-ready" });
  const routed = await startDev({
    app: floorApp,
    home: resolve(dir, "routed-home"),
    config: resolve(floorApp, "wrangler-assets.toml"),
  });
  const agents = await startDev({ app: agentsApp, home: resolve(dir, "agents-home"), readyPath: "/bench-ready" });
  // Bench-only: the same build without [assets], so no static-assets router in front of it.
  const bare = await toolgate(app, "recorded-no-router", RECORDED, {}, { assets: false });
  const bareAfter = await toolgate(app, "after-answer-no-router", AFTER_ANSWER, {}, { assets: false });
  const servers = [recorded, after, afterOne, bare, bareAfter, floor, routed, agents];
  const bases: DevServer[] = [];
  if (BASE) {
    const baseApp = snapshotOf(BASE, resolve(dir, "base"));
    bases.push(await toolgate(baseApp, "base-recorded", RECORDED), await toolgate(baseApp, "base-after", AFTER_ANSWER));
    servers.push(...bases);
  }
  const measured: Measured[] = [];
  let loads: number[];
  try {
    // One at a time: each gets the whole timeout after the one before.
    for (const server of servers) await waitReady(server);
    const targets: [Target, DevServer][] = [
      [modernMcpTarget("toolgate /mcp 2026-07-28, recorded", recorded.url, "/mcp", AUTH), recorded],
      [await toolgateMcpTarget("toolgate /mcp 2025-11-25 session, recorded", recorded.url), recorded],
      [toolgateOpenAiTarget("toolgate /v1/calls/openai, recorded", recorded.url), recorded],
      [modernMcpTarget("toolgate /mcp 2026-07-28, record after answer", after.url, "/mcp", AUTH), after],
      [
        modernMcpTarget("toolgate /mcp 2026-07-28, one shard, record after answer", afterOne.url, "/mcp", AUTH),
        afterOne,
      ],
      [modernMcpTarget("toolgate /mcp 2026-07-28 without the router, recorded", bare.url, "/mcp", AUTH), bare],
      [
        modernMcpTarget(
          "toolgate /mcp 2026-07-28 without the router, record after answer",
          bareAfter.url,
          "/mcp",
          AUTH,
        ),
        bareAfter,
      ],
      [toolgateOpenAiTarget("toolgate /v1/calls/openai without the router, recorded", bare.url), bare],
      [modernMcpTarget("agents createMcpHandler", agents.url), agents],
      [modernMcpTarget("floor: parse + valibot + add", floor.url, "/rpc"), floor],
      [modernMcpTarget("floor: + awaited DO insert", floor.url, "/rpc-write"), floor],
      [modernMcpTarget("floor: + DO insert + log line", floor.url, "/rpc-write-log"), floor],
      [modernMcpTarget("floor, routed: + DO insert + log line", routed.url, "/rpc-write-log"), routed],
      [modernMcpTarget("floor: log line, row batched after the answer", floor.url, "/rpc-log-batch"), floor],
      [modernMcpTarget("floor, routed: log line, row batched after the answer", routed.url, "/rpc-log-batch"), routed],
      [modernMcpTarget("floor: + ledger row, indexes, events + log line", floor.url, "/rpc-ledger-log"), floor],
      [modernMcpTarget("floor, routed: + ledger row, indexes, events + log", routed.url, "/rpc-ledger-log"), routed],
    ];
    if (BASE) {
      targets.push([
        modernMcpTarget(`base ${BASE}: /mcp 2026-07-28, recorded`, bases[0]!.url, "/mcp", AUTH),
        bases[0]!,
      ]);
      targets.push([
        modernMcpTarget(`base ${BASE}: /mcp 2026-07-28, record after answer`, bases[1]!.url, "/mcp", AUTH),
        bases[1]!,
      ]);
    }
    for (const [target, server] of targets) {
      if (ONLY.test(target.name)) measured.push({ target, server, results: [], cpuUs: [] });
    }
    loads = await alternateRounds(measured, ROUNDS, SECONDS, CONNECTIONS);
  } finally {
    await Promise.all(servers.map(stopDev));
  }
  report(measured, loads);
}

const rps = (m: Measured) => median(m.results.map((r) => r.requests.average));
const cpu = (m: Measured) => median(m.cpuUs);
const byName = (measured: Measured[], name: string) => measured.find((m) => m.target.name.startsWith(name));
/** The median over rounds of `a`'s figure ÷ `b`'s in the same round. */
const perRound = (a: Measured, b: Measured, figure: (m: Measured, round: number) => number) =>
  median(a.cpuUs.map((_, round) => figure(a, round) / figure(b, round)));
const cpuOf = (m: Measured, round: number) => m.cpuUs[round]!;
const rpsOf = (m: Measured, round: number) => m.results[round]!.requests.average;

function report(measured: Measured[], loads: number[]): void {
  console.table(
    measured.map((m) => ({
      target: m.target.name,
      "req/s": Math.round(rps(m)),
      "p50 ms": median(m.results.map((r) => r.latency.p50)),
      "p99 ms": median(m.results.map((r) => r.latency.p99)),
      "CPU µs/req": Math.round(cpu(m)),
      "by round": m.cpuUs.map((us) => Math.round(us)).join(" "),
    })),
  );
  console.log(
    `wrangler dev ${INSPECTOR ? "with" : "without"} its inspector; ${CONNECTIONS} connections, ${ROUNDS} × ` +
      `${SECONDS} s per target, medians over rounds; load average ${loads.map((l) => l.toFixed(1)).join(" → ")}.`,
  );
  const writeLog = byName(measured, "floor: + DO insert + log line");
  const fixtures = [
    writeLog,
    byName(measured, "floor: + awaited DO insert"),
    byName(measured, "floor, routed: + DO insert + log line"),
    byName(measured, "floor: + ledger row"),
    byName(measured, "floor, routed: + ledger row"),
  ];
  const line = (m: Measured, f: Measured | undefined) => {
    if (f)
      console.log(
        `  ÷ ${f.target.name}: CPU ${perRound(m, f, cpuOf).toFixed(2)}×, req/s ${perRound(m, f, rpsOf).toFixed(2)}×`,
      );
  };
  const base = (m: Measured, kind: string) =>
    m.target.name.startsWith("toolgate /mcp 2026-07-28")
      ? byName(measured, `base ${BASE}: /mcp 2026-07-28, ${kind}`)
      : undefined;
  for (const m of measured.filter((m) => m.target.name.endsWith("recorded"))) {
    if (writeLog) {
      const cpuRatio = perRound(m, writeLog, cpuOf);
      const rpsRatio = perRound(m, writeLog, rpsOf);
      const met = cpuRatio <= 1.3 && rpsRatio >= 0.9;
      console.log(
        `${m.target.name} (target CPU ≤ 1.3×, req/s ≥ 0.9× the DO insert + log line): ${met ? "met" : "MISSED"}`,
      );
    } else console.log(m.target.name);
    for (const f of fixtures) line(m, f);
    line(m, base(m, "recorded"));
  }
  const agents = byName(measured, "agents");
  for (const m of measured.filter((m) => m.target.name.endsWith("after answer"))) {
    if (agents) {
      const rpsRatio = perRound(m, agents, rpsOf);
      console.log(
        `${m.target.name}: req/s ${rpsRatio.toFixed(2)}× agents' (target ≥ 1): ${rpsRatio >= 1 ? "met" : "MISSED"}`,
      );
    } else console.log(m.target.name);
    line(m, agents);
    line(m, byName(measured, "floor: log line, row batched"));
    line(m, byName(measured, "floor, routed: log line, row batched"));
    line(m, base(m, "record after answer"));
  }
  if (process.env.OUT) {
    const rows = measured.map((m) => ({
      target: m.target.name,
      rps: m.results.map((r) => r.requests.average),
      p50: m.results.map((r) => r.latency.p50),
      p99: m.results.map((r) => r.latency.p99),
      cpuUs: m.cpuUs,
    }));
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    writeFileSync(process.env.OUT, JSON.stringify({ inspector: INSPECTOR, loads, rows }, null, 2));
  }
}

await main();
