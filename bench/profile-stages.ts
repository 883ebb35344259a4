/**
 * Where one recorded call's CPU goes, by stage: a V8 CPU profile of toolgate's isolate (the DevTools
 * Profiler through wrangler dev's inspector; the Worker and its Durable Objects share the isolate, so
 * the ledger object is in it too) while autocannon sends the call of bench/http-recorded.ts, each
 * sample given to the stage of the innermost frame of its stack that belongs to one (a native call such
 * as JSON.stringify counts for the code that made it). The build is unminified for the profile, so that
 * the bundle keeps esbuild's `// <source file>` markers: a frame's source file is the last marker above
 * its line.
 * Run: INSPECTOR=on node scripts/run-ts.mjs bench/profile-stages.ts   (TARGET=mcp (default), openai or after-answer;
 * SECONDS=8, CONNECTIONS=16; DETAIL=<n> lists the n costliest leaves with the frame that
 * decided their stage; PROFILE_OUT=<file> writes the raw profile)
 * The profile is sampled while the inspector is attached, which relays each log line to another
 * process: read shares and the order of stages, and bench/http-recorded.ts for what a request costs.
 */
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import { devtools, type Profile, type ProfileNode } from "./lib/devtools";
import { AUTH, checkTarget, loadTarget, modernMcpTarget, toolgateOpenAiTarget, type Target } from "./lib/http-targets";
import { treeCpuPreciseMs } from "./lib/process-cpu";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const SECONDS = Number(process.env.SECONDS ?? 8);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const TARGET = process.env.TARGET ?? "mcp";
/** How many leaf functions to list, each with the frame that decided its stage. */
const DETAIL = Number(process.env.DETAIL ?? 0);
const dir = resolve(".tmp/bench-profile-stages");
/** What the profile calls the Worker's bundle. */
const BUNDLE_URL = "index.js";

/**
 * The stages of a call, by the source file (and for a few, the function) of a frame. The first rule
 * that matches a frame names its stage; frames of no stage (the runtime's own) pass to their caller.
 */
const WORKER_STAGES: [stage: string, file: RegExp, fn?: RegExp][] = [
  ["logging (the call's log line)", /worker\/log\.ts$/],
  ["authentication (key check)", /worker\/(middleware\/auth|keys\/|oauth\/)/],
  ["response encoding", /./, /^(toCallToolResult|encode\w*|rpcResult|shaped|json|respond)$/],
  ["record building and masking", /src\/(mask|budget)\.ts$/],
  ["record building and masking", /src\/pipeline\/finish\.ts$/, /^(buildRecord|maskRecord|mask)$/],
  ["ledger client: argument hash", /src\/(hash|sha256)\.ts$/],
  ["ledger client: journal, group commit, RPC", /worker\/(ledger|durable)\//],
  ["tenant and registry lookup", /worker\/(middleware\/tenant|tenant\/)|src\/registry\.ts$/],
  ["pipeline (decide, validate, run, finish)", /src\/(pipeline|tool|validation|policy|hooks|result|schema)/],
  ["envelope and format (decode, MCP transport)", /worker\/(mcp|routes|formats)|src\/(formats|mcp|json)/],
  [
    "routing and middleware (hono)",
    /hono|worker\/(app|hono-lazy|execution|surface|caller-hooks)\.ts$|worker\/middleware\//,
  ],
  ["other toolgate code", /src\/|worker\//],
];
/** The ledger object's side: any sample whose stack runs through the Ledger class (its RPC methods). */
const LEDGER_FILE = /worker\/ledger\/ledger\.ts$/;
const LEDGER_STAGES: [stage: string, file: RegExp][] = [
  ["ledger object: events", /worker\/ledger\/events\.ts$/],
  ["ledger object: the row (insert, record JSON)", /worker\/ledger\/records\.ts$/],
  ["ledger object: claim and commit logic", /worker\/ledger\/(claims|taken)\.ts$/],
  ["ledger object: transaction, alarm, RPC entry", /worker\/(ledger|durable)\//],
];

/** The bundle wrangler dev runs: the newest index.js under .wrangler/tmp beside its config. */
function bundleOf(root: string): string {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === "index.js") found.push(path);
    }
  };
  walk(join(root, ".wrangler/tmp"));
  const newest = found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) throw new Error(`no bundle under ${root}/.wrangler/tmp`);
  return newest;
}

/** Line (0-based) → source file of the bundle, from esbuild's `// <path>` module markers. */
function sourceLines(bundle: string): (line: number) => string {
  const starts: number[] = [];
  const files: string[] = [];
  readFileSync(bundle, "utf8")
    .split("\n")
    .forEach((text, line) => {
      const marker = /^\/\/ ((?:\.\.\/)*[\w@.-][\w@./-]*\.(?:[cm]?[jt]s|json))$/.exec(text);
      if (marker) starts.push(line), files.push(marker[1]!);
    });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= line) (at = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    return at < 0 ? "" : files[at]!;
  };
}

function targetOf(url: string): Target {
  if (TARGET === "openai") return toolgateOpenAiTarget("/v1/calls/openai, recorded", url);
  return modernMcpTarget(
    `/mcp 2026-07-28, ${TARGET === "after-answer" ? "after answer" : "recorded"}`,
    url,
    "/mcp",
    AUTH,
  );
}

async function main(): Promise<void> {
  if (!INSPECTOR) throw new Error("run with INSPECTOR=on: the profile is taken through wrangler dev's inspector");
  const app = snapshot(dir);
  const config = writeWranglerConfig(app, resolve(dir, "toolgate.json"), {
    TOOLGATE_DEMO: "false",
    TOOLGATE_CONFIG: JSON.stringify({
      ...DEMO_CONFIG,
      readOnlyRecords: TARGET === "after-answer" ? "after-answer" : "before-answer",
    }),
  });
  // Unminified: the bundle keeps its module markers (and its functions' names).
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), minify: false }, null, 2));
  const server = await startDev({ app, home: resolve(dir, "home"), config });
  try {
    await waitReady(server);
    const target = targetOf(server.url);
    await checkTarget(target);
    await loadTarget(target, 3, CONNECTIONS); // warm up
    const session = await devtools(server.inspectorPort!);
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: 100 });
    const cpuBefore = treeCpuPreciseMs(server.process.pid!);
    await session.send("Profiler.start");
    const result = await loadTarget(target, SECONDS, CONNECTIONS);
    const { profile } = await session.send<{ profile: Profile }>("Profiler.stop");
    const cpuMs = treeCpuPreciseMs(server.process.pid!) - cpuBefore;
    session.close();
    if (process.env.PROFILE_OUT)
      writeFileSync(process.env.PROFILE_OUT, JSON.stringify({ profile, requests: result.requests.total }));
    const bundle = bundleOf(dir);
    // Kept for reading the lines DETAIL names (wrangler deletes its own copy when it stops).
    copyFileSync(bundle, resolve(dir, "bundle.js"));
    report(profile, result.requests.total, sourceLines(bundle), target.name, cpuMs);
  } finally {
    await stopDev(server);
  }
}

/** Each sample's stage, from the innermost frame of its stack that has one. */
function report(profile: Profile, requests: number, fileAt: (line: number) => string, name: string, cpuMs: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  // The bundle's frames; other scripts (the runtime's own, node-internal:*) have no toolgate file.
  const fileOf = (node: ProfileNode) => (node.callFrame.url === BUNDLE_URL ? fileAt(node.callFrame.lineNumber) : "");
  const stageCache = new Map<number, string>();
  /** Per leaf: its own function and the frame that decided its stage (DETAIL lists them). */
  const why = new Map<number, string>();
  const stageOf = (leaf: ProfileNode): string => {
    const cached = stageCache.get(leaf.id);
    if (cached) return cached;
    const stack: ProfileNode[] = [];
    for (let node: ProfileNode | undefined = leaf; node; node = parent.get(node.id)) stack.push(node);
    const own = leaf.callFrame.functionName;
    let stage: string | undefined;
    if (own === "(garbage collector)" || own === "(program)" || own === "(idle)") stage = own;
    const inLedger = stack.some((node) => LEDGER_FILE.test(fileOf(node)));
    for (const node of stack) {
      if (stage) break;
      const file = fileOf(node);
      if (!file) continue;
      if (inLedger) stage = LEDGER_STAGES.find(([, pattern]) => pattern.test(file))?.[0];
      else
        stage = WORKER_STAGES.find(
          ([, pattern, fn]) => pattern.test(file) && (!fn || fn.test(node.callFrame.functionName)),
        )?.[0];
      const at = `${node.callFrame.lineNumber + 1}:${node.callFrame.columnNumber + 1}`;
      if (stage)
        why.set(leaf.id, `${own || "(anonymous)"} ← ${node.callFrame.functionName || "(anonymous)"} ${file} ${at}`);
    }
    stage ??= inLedger ? "ledger object: runtime (no toolgate frame)" : "runtime (no toolgate frame)";
    stageCache.set(leaf.id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  const details = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const stage = stageOf(byId.get(id)!);
    totals.set(stage, (totals.get(stage) ?? 0) + us);
    const detail = `${stage}: ${why.get(id) ?? ""}`;
    details.set(detail, (details.get(detail) ?? 0) + us);
    total += us;
  });
  const idle = totals.get("(idle)") ?? 0;
  totals.delete("(idle)");
  const busy = total - idle;
  console.log(
    `${name}: ${requests} requests in ${SECONDS} s; the isolate busy ${(busy / requests).toFixed(0)} µs per request ` +
      `(sampled ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms); the whole wrangler dev ` +
      `process tree ${((cpuMs * 1000) / requests).toFixed(0)} µs CPU per request`,
  );
  console.table(
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .map(([stage, us]) => ({
        stage,
        "µs/req": Math.round(us / requests),
        share: `${((us / busy) * 100).toFixed(1)}%`,
      })),
  );
  if (DETAIL > 0) {
    const top = [...details].sort((a, b) => b[1] - a[1]).slice(0, DETAIL);
    for (const [detail, us] of top) console.log(`${String(Math.round(us / requests)).padStart(6)} µs/req  ${detail}`);
  }
}

await main();
