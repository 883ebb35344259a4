/**
 * Library or hand-written MCP server: toolgate's Worker with its hand-written /mcp handler, and the
 * same Worker with /mcp served by the official SDK v2 server (bench/fixtures/mcp-sdk-v2/mcp-route.ts
 * copied over worker/routes/mcp.ts in a snapshot), measured side by side:
 *   startup CPU  median of `wrangler check startup` profiles (active samples), as bench/startup.ts
 *   bundle       gzip of `wrangler deploy --dry-run`
 *   requests/s   autocannon, one 2026-07-28 tools/call of `add` per request (through the pipeline
 *                and a ledger record in both), alternating rounds against two `wrangler dev`s
 * The decision rule: adopt the library if the Worker stays ≤ 10 ms of startup CPU and ≤ 120 KB gzip.
 * Run: node scripts/run-ts.mjs bench/mcp-library.ts   (RUNS=5 ROUNDS=3 SECONDS=5 CONNECTIONS=8; ~4 minutes)
 */
import type { Result } from "autocannon";
import { copyFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEMO_KEYS } from "../worker/demo/tenant";
import { assertClean, checkTarget, loadTarget, type Target } from "./lib/http-targets";
import { median } from "./lib/load";
import { bundleKb, startupMs } from "./lib/startup-measure";
import { snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const dir = resolve(".tmp/bench-mcp-library");

let seq = 0;
/** A stateless 2026-07-28 tools/call: envelope in _meta and the standard headers; a fresh id each. */
function modernCall(name: string, url: string): Target {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${DEMO_KEYS.call}`,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "add",
  };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const body = () =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: ++seq,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, b: 2 }, _meta: meta },
    });
  return { name, url, path: "/mcp", headers, body };
}

interface Variant {
  name: string;
  app: string;
  server?: DevServer;
  results: Result[];
}

async function main(): Promise<void> {
  const handwritten: Variant = { name: "hand-written handler", app: snapshot(resolve(dir, "hand")), results: [] };
  const library: Variant = {
    name: "SDK v2 server (@modelcontextprotocol/server)",
    app: snapshot(resolve(dir, "sdk"), (app) =>
      copyFileSync(resolve("bench/fixtures/mcp-sdk-v2/mcp-route.ts"), resolve(app, "worker/routes/mcp.ts")),
    ),
    results: [],
  };
  const variants = [handwritten, library];
  const cold = variants.map((variant) => {
    const cwd = process.cwd();
    process.chdir(variant.app);
    try {
      const times = startupMs(RUNS, resolve(variant.app, ".tmp/startup"));
      return { variant, times, size: bundleKb(resolve(variant.app, ".tmp/startup")) };
    } finally {
      process.chdir(cwd);
    }
  });
  try {
    for (const variant of variants)
      variant.server = await startDev({
        app: variant.app,
        home: resolve(dir, `${variant.name === handwritten.name ? "hand" : "sdk"}-home`),
      });
    await Promise.all(variants.map((variant) => waitReady(variant.server!)));
    const targets = variants.map((variant) => modernCall(variant.name, variant.server!.url));
    for (const target of targets) await checkTarget(target);
    for (const target of targets) assertClean(target, await loadTarget(target, 2, CONNECTIONS)); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, variant] of variants.entries()) {
        const result = await loadTarget(targets[i]!, SECONDS, CONNECTIONS);
        assertClean(targets[i]!, result);
        variant.results.push(result);
      }
    }
  } finally {
    await Promise.all(variants.map((variant) => stopDev(variant.server)));
  }
  console.table(
    cold.map(({ variant, times, size }) => ({
      "/mcp served by": variant.name,
      "startup CPU ms (median)": median(times).toFixed(1),
      runs: times.map((t) => t.toFixed(1)).join(", "),
      "bundle KB": size.raw.toFixed(0),
      "gzip KB": size.gzip.toFixed(1),
      "tools/call req/s (median)": Math.round(median(variant.results.map((r) => r.requests.average))),
      "p50 ms": median(variant.results.map((r) => r.latency.p50)),
    })),
  );
  const sdk = cold[1]!;
  const fits = median(sdk.times) <= 10 && sdk.size.gzip <= 120;
  console.log(`SDK v2 server: ${fits ? "within" : "beyond"} the adoption rule (≤ 10 ms startup CPU, ≤ 120 KB gzip)`);
}

await main();
