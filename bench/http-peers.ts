/**
 * toolgate against the official MCP TypeScript SDK over HTTP on 127.0.0.1, one `add` call per request:
 *   toolgate (`wrangler dev`, demo tenant): MCP tools/call on /mcp, and POST /v1/calls/openai;
 *   the SDK (bench/lib/mcp-sdk-server.ts, Node): McpServer + StreamableHTTPServerTransport, stateless,
 *     with JSON answers (enableJsonResponse) and with the default SSE answers.
 * toolgate is also served with its ledger switched off, from a patched snapshot of the sources (the
 * patch lives here, never in the Worker: no deployed tenant can run without its ledger). Two floors:
 * toolgate's GET /healthz (same middleware, no call) and a hello-world Worker under wrangler dev.
 * Each target's answer is checked before timing; then autocannon, same connections for all, in
 * alternating rounds so background load hits all alike; medians over rounds.
 * Run: node scripts/run-ts.mjs bench/http-peers.ts   (ROUNDS, SECONDS, CONNECTIONS; ~2 minutes)
 */
import type { Result } from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { unstable_readConfig } from "wrangler";
import { table } from "./harness";
import {
  assertClean,
  checkTarget,
  loadTarget,
  sdkTarget,
  toolgateFloorTarget,
  toolgateMcpTarget,
  toolgateOpenAiTarget,
  type Target,
} from "./lib/http-targets";
import { median, waitForQuiet } from "./lib/load";
import { NODE, snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 4);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const dir = resolve(".tmp/bench-http-peers");

/** The bench-only variant: executionOptions without its journal, so calls leave no record. */
function withoutLedger(app: string): void {
  const file = resolve(app, "worker/execution.ts");
  const source = readFileSync(file, "utf8");
  const anchor = "export function executionOptions(";
  if (!source.includes(anchor))
    throw new Error(`worker/execution.ts has no "${anchor}": update the no-ledger patch in bench/http-peers.ts`);
  const wrapper = `
export function executionOptions(c: Context<AppEnv>, run?: ExecutionRun): BatchOptions {
  const { journal: _ledger, ...options } = executionOptionsWithLedger(c, run);
  return options;
}
`;
  writeFileSync(file, source.replace(anchor, "function executionOptionsWithLedger(") + wrapper);
}

/** A Worker that answers a constant JSON and nothing else: what wrangler dev itself serves here. */
function helloWorld(): { app: string; config: string } {
  const app = resolve(dir, "hello");
  mkdirSync(app, { recursive: true });
  writeFileSync(resolve(app, "index.js"), "export default { fetch: () => Response.json({ ok: true }) };\n");
  const { compatibility_date } = unstable_readConfig({ config: "wrangler.toml" });
  const config = resolve(app, "wrangler.json");
  writeFileSync(config, JSON.stringify({ name: "bench-hello", main: "index.js", compatibility_date }));
  return { app, config };
}

/** The SDK server in its own process; resolves with its origin once it listens. */
function startSdk(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(NODE, ["scripts/run-ts.mjs", "bench/lib/mcp-sdk-server.ts"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((done, fail) => {
    child.once("exit", (code) => fail(new Error(`the SDK server exited (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(String(chunk))?.[1];
      if (port) done({ url: `http://127.0.0.1:${port}`, child });
    });
  });
}

interface Summary {
  name: string;
  rps: number;
  p50: number;
  p99: number;
}

function report(summaries: Summary[], load: number): void {
  const [json, sse] = summaries.filter((s) => s.name.startsWith("SDK"));
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const rows = summaries.map((s) => ({
    server: s.name,
    "req/s": Math.round(s.rps),
    "p50 ms": s.p50,
    "p99 ms": s.p99,
    "req/s ÷ SDK JSON": ratio(s.rps, json!.rps),
    "req/s ÷ SDK SSE": ratio(s.rps, sse!.rps),
    "p99 ÷ SDK JSON": ratio(s.p99, json!.p99),
  }));
  console.log(table(rows));
  console.log(
    `\n${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per server, medians over rounds; load average ${load.toFixed(1)} at the start.`,
  );
  console.log(
    "Caveat: toolgate keeps a durable record of every call (ledger: one Durable Object round trip for a read-only tool like add, two for others, each a SQLite",
  );
  console.log(
    "transaction) and checks the key and the MCP session on each request; the SDK server keeps nothing and has no auth.",
  );
  console.log('The "no ledger" rows are a bench-only build without the journal, to show what that durability costs.');
  console.log(
    "toolgate runs in workerd behind wrangler dev's local proxy; the SDK server is a plain Node process. The",
  );
  console.log(
    "floor rows: toolgate's GET /healthz (no tool call, same middleware) and a hello-world Worker (wrangler dev alone).",
  );
}

async function main(): Promise<void> {
  const load = await waitForQuiet();
  const servers: DevServer[] = [];
  let sdk: { url: string; child: ChildProcess } | undefined;
  const samples = new Map<string, Result[]>();
  try {
    const ledger = await startDev({ app: snapshot(resolve(dir, "ledger")), home: resolve(dir, "ledger/home") });
    servers.push(ledger);
    const bare = await startDev({
      app: snapshot(resolve(dir, "no-ledger"), withoutLedger),
      home: resolve(dir, "no-ledger/home"),
    });
    servers.push(bare);
    const hello = await startDev({ ...helloWorld(), home: resolve(dir, "hello/home") });
    servers.push(hello);
    sdk = await startSdk();
    await Promise.all(servers.map((s) => waitReady(s)));
    const targets: Target[] = [
      sdkTarget("SDK, JSON answers", sdk.url, "/json"),
      sdkTarget("SDK, SSE answers", sdk.url, "/sse"),
      await toolgateMcpTarget("toolgate /mcp", ledger.url),
      toolgateOpenAiTarget("toolgate /v1/calls/openai", ledger.url),
      await toolgateMcpTarget("toolgate /mcp, no ledger", bare.url),
      toolgateOpenAiTarget("toolgate /v1/calls/openai, no ledger", bare.url),
      toolgateFloorTarget("toolgate GET /healthz (floor)", ledger.url),
      toolgateFloorTarget("wrangler dev, hello-world Worker", hello.url),
    ];
    for (const target of targets) await checkTarget(target);
    // Warm up isolates, JIT, Durable Objects
    for (const target of targets) assertClean(target, await loadTarget(target, 2, CONNECTIONS));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const result = await loadTarget(target, SECONDS, CONNECTIONS);
        assertClean(target, result);
        samples.set(target.name, [...(samples.get(target.name) ?? []), result]);
      }
    }
  } finally {
    sdk?.child.kill("SIGTERM");
    await Promise.all(servers.map((s) => stopDev(s)));
  }
  const summaries = [...samples].map(([name, results]) => ({
    name,
    rps: median(results.map((r) => r.requests.average)),
    p50: median(results.map((r) => r.latency.p50)),
    p99: median(results.map((r) => r.latency.p99)),
  }));
  report(summaries, load);
}

await main();
