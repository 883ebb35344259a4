/**
 * How the Worker's cold start grows with the tenant's configuration: the demo, then 10 / 100 / 1,000
 * declared HTTP adapter tools in TOOLGATE_CONFIG (a var, in a wrangler config generated under .tmp/).
 *   bundle gzip and startup CPU: `wrangler deploy --dry-run` and `wrangler check startup`, as in
 *     bench/startup.ts. A var is a binding, not code: neither should move.
 *   first request: the config is parsed (and the registry and listings built) on the isolate's first
 *     request, not at startup, so that is where its cost lands: time to the first answer of
 *     GET /v1/tools/openai once `wrangler dev` is up (readiness is polled on a static asset, which never
 *     runs the Worker), next to a second, warm GET.
 * Run: node scripts/run-ts.mjs bench/startup-growth.ts   (RUNS, FIRST_RUNS, SIZES=10,100; ~3 minutes)
 */
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { createTenant } from "../worker/tenant";
import { table } from "./harness";
import { median, waitForQuiet } from "./lib/load";
import { activeMs, bundleKb, nativeMs, startupProfiles } from "./lib/startup-measure";
import { httpToolsConfig } from "./lib/tenant-growth";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { snapshot, startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 3);
const FIRST_RUNS = Number(process.env.FIRST_RUNS ?? 2);
const SIZES = (process.env.SIZES ?? "10,100,1000").split(",").map(Number);
const dir = resolve(".tmp/bench-startup-growth");
/** Cloudflare's documented limit on one environment variable (developers.cloudflare.com/workers/platform/limits). */
const VAR_LIMIT_KB = 5;

interface Variant {
  name: string;
  tools: number;
  vars: Record<string, string>;
  config: string;
  startup: number[];
  /** The native part of each startup profile ("(program)" samples). */
  native: number[];
  gzipKb: number;
  first: number[];
  warm: number[];
}

function variant(app: string, name: string, tools: number, vars: Record<string, string>): Variant {
  const config = writeWranglerConfig(app, resolve(dir, `${name.replace(/\W+/g, "-")}.json`), vars);
  return { name, tools, vars, config, startup: [], native: [], gzipKb: 0, first: [], warm: [] };
}

/** GET /v1/tools/openai, checked: 200 and every tool listed, none skipped. Returns its ms. */
async function listTools(url: string, v: Variant): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/tools/openai`, { headers: { authorization: `Bearer ${DEMO_KEYS.call}` } });
  const body = (await res.json()) as { tools?: unknown[]; skipped?: unknown[] };
  const ms = performance.now() - t0;
  if (res.status !== 200 || body.tools?.length !== v.tools || body.skipped) {
    throw new Error(`${v.name}: GET /v1/tools/openai answered ${res.status} with ${body.tools?.length} tools: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return ms;
}

async function firstRequest(app: string, v: Variant, run: number): Promise<void> {
  const server = await startDev({ app, home: resolve(dir, "home", String(run)), config: v.config });
  try {
    await waitReady(server);
    v.first.push(await listTools(server.url, v));
    v.warm.push(await listTools(server.url, v));
  } finally {
    await stopDev(server);
  }
}

function report(variants: Variant[], load: number): void {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const rows = variants.map((v) => {
    const text = v.vars.TOOLGATE_CONFIG;
    const first = median(v.first);
    const warm = median(v.warm);
    return {
      tenant: v.name,
      tools: v.tools,
      "TOOLGATE_CONFIG KB (gzip)": text ? `${kb(text.length)} (${kb(gzipSync(text).length)})` : "— (embedded)",
      "bundle gzip KB": v.gzipKb.toFixed(1),
      "startup CPU ms (native)": `${median(v.startup).toFixed(1)} (${median(v.native).toFixed(1)})`,
      "first GET /v1/tools/openai ms": first.toFixed(0),
      "warm GET ms": warm.toFixed(0),
      "first − warm ms": (first - warm).toFixed(0),
    };
  });
  console.log(table(rows));
  console.log(`\nstartup CPU: median of ${RUNS} profiles; first/warm: median of ${FIRST_RUNS} fresh wrangler dev starts; load average ${load.toFixed(1)} at the start.`);
  console.log("The config is a var (a binding), not code: the bundle stays the same and no JS reads it at startup; any growth of");
  console.log("startup CPU is native (runtime) work on the larger binding. Parsing it, the registry and the format's listing are");
  console.log("built on the isolate's first request (first − warm, which also holds the first request's own warm-up), once per isolate.");
  const over = variants.filter((v) => (v.vars.TOOLGATE_CONFIG?.length ?? 0) > VAR_LIMIT_KB * 1024).map((v) => v.name);
  if (over.length) console.log(`Cloudflare limits one environment variable to ${VAR_LIMIT_KB} KB: ${over.join(", ")} run under wrangler dev but exceed it when deployed.`);
}

async function main(): Promise<void> {
  const load = await waitForQuiet();
  const app = snapshot(dir);
  const variants = [
    // The demo offers tools by tag: count what its registry holds.
    variant(app, "demo", createTenant(DEMO_CONFIG).registry.list().length, { TOOLGATE_DEMO: "true" }),
    ...SIZES.map((n) => variant(app, `${n} HTTP tools`, n, { TOOLGATE_DEMO: "false", TOOLGATE_CONFIG: JSON.stringify(httpToolsConfig(n)) })),
  ];
  for (const v of variants) {
    const out = resolve(dir, "out", v.name.replace(/\W+/g, "-"));
    const profiles = startupProfiles(RUNS, out, ["--config", v.config]);
    v.startup = profiles.map(activeMs);
    v.native = profiles.map(nativeMs);
    v.gzipKb = bundleKb(out, ["--config", v.config]).gzip;
  }
  // Round by round across the variants, so background load hits them alike.
  for (let run = 0; run < FIRST_RUNS; run++) for (const v of variants) await firstRequest(app, v, run);
  report(variants, load);
}

await main();
