import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort } from "../../test/servers/wrangler-dev";
import { startAuthProxy } from "./proxy";

/**
 * npm run test:conformance: the official MCP conformance suite (server mode,
 * @modelcontextprotocol/conformance 0.2.0-alpha.12, the first to hold the 2026-07-28 scenarios)
 * against `wrangler dev` serving the conformance tenant (scripts/conformance/tenant.json: demo tools
 * plus the suite's fixture tools, which only the test entry test/fixtures/worker.ts offers), once
 * per era: every server scenario of 2025-11-25 (the legacy wire: initialize and sessions) and of
 * 2026-07-28 (the stateless wire) with the tasks extension's scenarios.
 *
 * Two lists excuse failures, each scenario-wide or `<scenario>:<check>`: expected-failures.yaml,
 * what toolgate deliberately does not offer (resources, prompts, completions), and not-yet.yaml,
 * what it does not offer yet (none today). The runner reports them apart. Exit code 0 only when every other scenario
 * passes and no listed failure passes (a stale entry fails the run, so the lists stay true).
 */

const HERE = resolve("scripts/conformance");
const KEY = "conformance-key";
// The suite is in the bench package (bench/package.json; npm run test:conformance installs it).
const CONFORMANCE = resolve("bench/node_modules/@modelcontextprotocol/conformance/dist/index.js");
const WRANGLER = resolve("node_modules/wrangler/bin/wrangler.js");
/** wrangler.toml's Worker with the test catalogue: production builds do not ship the fixture tools. */
const TEST_ENTRY = "test/fixtures/worker.ts";
const MERGED_BASELINE = resolve(".tmp/conformance-baseline.yaml");

interface EraRun {
  specVersion: string;
  /** Extension scenarios (not on the spec's timeline) run at this version too, with --force. */
  extensions?: RegExp;
}

const ERAS: readonly EraRun[] = [{ specVersion: "2025-11-25" }, { specVersion: "2026-07-28", extensions: /^tasks-/ }];

function run(args: string[], quiet = false): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

async function startWrangler(port: number): Promise<ChildProcess> {
  const config = JSON.stringify(JSON.parse(readFileSync(resolve(HERE, "tenant.json"), "utf8")));
  const args = [
    WRANGLER,
    "dev",
    TEST_ENTRY,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(await freePort()),
  ];
  args.push("--persist-to", ".tmp/conformance-state", "--show-interactive-dev-session=false", "--log-level", "warn");
  args.push("--var", `TOOLGATE_CONFIG:${config}`);
  // Its own process group, so stopping it also stops the workerd it starts. No fetch of the
  // Request.cf template: toolgate never reads request.cf, and the run stays on loopback.
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], detached: true, env });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((done) => setTimeout(done, 500));
  }
  throw new Error("wrangler dev did not answer /healthz within 90 s");
}

/** The entries of a baseline file (`server:` list), with their lines as written. */
function baseline(file: string): string[] {
  const text = readFileSync(resolve(HERE, file), "utf8");
  return [...text.matchAll(/^\s+- ([\w:-]+)\s*(?:#.*)?$/gm)].map((match) => match[1]!);
}

async function scenarios(era: EraRun): Promise<{ name: string; extension: boolean }[]> {
  const onTimeline = await run([CONFORMANCE, "list", "--server", "--spec-version", era.specVersion], true);
  const names = [...onTimeline.output.matchAll(/^\s+- ([\w-]+)/gm)].map((match) => ({
    name: match[1]!,
    extension: false,
  }));
  if (!era.extensions) return names;
  const all = await run([CONFORMANCE, "list", "--server"], true);
  const extensions = [...all.output.matchAll(/^\s+- ([\w-]+) \[extension\]/gm)]
    .map((match) => match[1]!)
    .filter((name) => era.extensions!.test(name));
  return [...names, ...extensions.map((name) => ({ name, extension: true }))];
}

type Outcome = "passed" | "not offered" | "not yet" | "skipped" | "failed";

async function runEra(
  era: EraRun,
  url: string,
  notOffered: Set<string>,
  notYet: Set<string>,
): Promise<Record<Outcome, string[]>> {
  const outcomes: Record<Outcome, string[]> = { passed: [], "not offered": [], "not yet": [], skipped: [], failed: [] };
  const list = await scenarios(era);
  if (list.length === 0) throw new Error(`the conformance CLI listed no server scenarios for ${era.specVersion}`);
  console.log(`\n=== MCP ${era.specVersion}: ${list.length} server scenarios ===`);
  for (const { name, extension } of list) {
    const args = [
      CONFORMANCE,
      "server",
      "--url",
      url,
      "--scenario",
      name,
      "--spec-version",
      era.specVersion,
      "--expected-failures",
      MERGED_BASELINE,
    ];
    if (extension) args.push("--force");
    const { code, output } = await run(args);
    // The CLI marks each failure it excused by the baseline with "~ <entry>" and exits 0 for them.
    const excused = [...output.matchAll(/^\s+~ ([\w:-]+)/gm)].map((match) => match[1]!);
    if (code !== 0) outcomes.failed.push(name);
    else if (/^SKIPPED: /m.test(output)) outcomes.skipped.push(name);
    else if (excused.some((entry) => notYet.has(entry))) outcomes["not yet"].push(name);
    else if (excused.some((entry) => notOffered.has(entry))) outcomes["not offered"].push(name);
    else outcomes.passed.push(name);
  }
  return outcomes;
}

async function main(): Promise<number> {
  const notOffered = baseline("expected-failures.yaml");
  const notYet = baseline("not-yet.yaml");
  mkdirSync(resolve(".tmp"), { recursive: true });
  writeFileSync(MERGED_BASELINE, `server:\n${[...notOffered, ...notYet].map((entry) => `  - ${entry}\n`).join("")}`);
  const wranglerPort = await freePort();
  const wrangler = await startWrangler(wranglerPort);
  const proxy = await startAuthProxy(wranglerPort, KEY);
  try {
    const url = `http://127.0.0.1:${proxy.port}/mcp`;
    const summary: string[] = [];
    let failed = 0;
    for (const era of ERAS) {
      const outcomes = await runEra(era, url, new Set(notOffered), new Set(notYet));
      failed += outcomes.failed.length;
      const total = Object.values(outcomes).reduce((sum, names) => sum + names.length, 0);
      summary.push(
        `MCP ${era.specVersion}: ${outcomes.passed.length} of ${total} passed; ` +
          `not offered (expected-failures.yaml): ${outcomes["not offered"].length}; ` +
          `not yet (not-yet.yaml): ${outcomes["not yet"].join(", ") || "none"}; ` +
          `skipped by the suite: ${outcomes.skipped.join(", ") || "none"}; ` +
          `unexpected: ${outcomes.failed.join(", ") || "none"}`,
      );
    }
    console.log(`\n${summary.join("\n")}`);
    return failed === 0 ? 0 : 1;
  } finally {
    await proxy.close();
    if (wrangler.pid !== undefined) process.kill(-wrangler.pid, "SIGTERM");
  }
}

process.exitCode = await main();
