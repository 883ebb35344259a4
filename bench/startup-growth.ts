/**
 * How the Worker's cold start grows with the tenant's configuration: the demo, then 10 / 100 / 1,000
 * declared HTTP adapter tools in TOOLGATE_CONFIG (a var, in a wrangler config generated under .tmp/)
 * and the same tenants bundled as a deploy bundles them (tenants/<name>.json and its entry module,
 * built by the snapshot's own build command, which precomputes their listings where the build does).
 *   bundle gzip and startup CPU: `wrangler deploy --dry-run` and `wrangler check startup`, as in
 *     bench/startup.ts. A var is a binding, not code: neither should move.
 *   first request: the config is parsed (and the tools a request needs built) on the isolate's first
 *     request, not at startup, so that is where its cost lands. Three first requests, each of a fresh
 *     `wrangler dev` once it is up (readiness is polled on a static asset, which never runs the
 *     Worker), each next to a second, warm one: GET /v1/tools/openai, an MCP tools/list (stateless
 *     2026-07-28), and one call (POST /v1/calls/openai) of one tool with arguments its schema refuses
 *     (a declared HTTP tool for the sized tenants, `add` for the demo: no upstream is reached).
 * Run: node scripts/run-ts.mjs bench/startup-growth.ts   (RUNS (0: first requests only), FIRST_RUNS, SIZES=10,100,
 *   PATHS=var,bundled (how the sized tenants get their configuration), BASE=<git ref>: that build's variants
 *   beside these, in the same rounds; ~5 minutes)
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { DEMO_CONFIG, DEMO_KEYS } from "../worker/demo/tenant";
import { createTenant } from "../worker/tenant/tenant";
import { table } from "./harness";
import { median, waitForQuiet } from "./lib/load";
import { activeMs, bundleKb, nativeMs, startupBundle, startupProfile } from "./lib/startup-measure";
import { snapshotOf } from "./lib/git-snapshot";
import { bundleTenant } from "./lib/bundled-tenant";
import { httpToolsConfig } from "./lib/tenant-growth";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { treeCpuPreciseMs } from "./lib/process-cpu";
import { snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const RUNS = Number(process.env.RUNS ?? 3);
const FIRST_RUNS = Number(process.env.FIRST_RUNS ?? 2);
const BASE = process.env.BASE;
const SIZES = (process.env.SIZES ?? "10,100,1000").split(",").map(Number);
const PATHS = (process.env.PATHS ?? "var,bundled").split(",");
const dir = resolve(".tmp/bench-startup-growth");
/** Cloudflare's documented limit on one environment variable (developers.cloudflare.com/workers/platform/limits). */
const VAR_LIMIT_KB = 5;
/** The demo offers tools by tag: count what its registry holds. */
const DEMO_TOOLS = createTenant(DEMO_CONFIG).registry.size;

interface Timings {
  ms: number[];
  cpu: number[];
}

interface Variant {
  name: string;
  /** The snapshot of the sources it runs. */
  app: string;
  tools: number;
  vars: Record<string, string>;
  config: string;
  startup: number[];
  /** The native part of each startup profile ("(program)" samples). */
  native: number[];
  gzipKb: number;
  /**
   * Per first request (FIRSTS): wall and CPU ms of the first answer of a fresh isolate, and of the warm one after it.
   */
  first: Record<string, Timings>;
  warm: Record<string, Timings>;
  /** The tool its first call names. */
  callTool: string;
}

function variant(app: string, name: string, tools: number, vars: Record<string, string>, main?: string): Variant {
  const config = writeWranglerConfig(app, resolve(dir, `${name.replace(/\W+/g, "-")}.json`), vars, main);
  const callTool = tools === DEMO_TOOLS ? "add" : `api_${String(Math.floor(tools / 2)).padStart(4, "0")}_get_item`;
  return { name, app, tools, vars, config, startup: [], native: [], gzipKb: 0, first: {}, warm: {}, callTool };
}

const auth = { authorization: `Bearer ${DEMO_KEYS.call}` };

interface FirstRequest {
  send(url: string, v: Variant): Promise<Response>;
  /** Whether the answer is right (else the bench stops with it). */
  check(v: Variant, status: number, body: string): boolean;
}

const MCP_PAGE = 100;
const MCP_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The first requests measured, each on a fresh isolate: every listing must hold every tool. */
const FIRSTS: Record<string, FirstRequest> = {
  "GET /v1/tools/openai": {
    send: (url) => fetch(`${url}/v1/tools/openai`, { headers: auth }),
    check: (v, status, body) => {
      const parsed = JSON.parse(body) as { tools?: unknown[]; skipped?: unknown[] };
      return status === 200 && parsed.tools?.length === v.tools && !parsed.skipped;
    },
  },
  "MCP tools/list": {
    send: (url) => {
      const headers = {
        ...auth,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      };
      return fetch(`${url}/mcp`, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MCP_META } }),
      });
    },
    // Its first page (100 tools), with a cursor when there are more; the page is cut from the whole listing.
    check: (v, status, body) => {
      const result = (JSON.parse(body) as { result?: { tools?: unknown[]; nextCursor?: string } }).result;
      return (
        status === 200 &&
        result?.tools?.length === Math.min(v.tools, MCP_PAGE) &&
        v.tools > MCP_PAGE === (result.nextCursor !== undefined)
      );
    },
  },
  "one call (refused arguments)": {
    send: (url, v) => {
      const message = {
        role: "assistant",
        tool_calls: [
          {
            id: `c${Math.random().toString(36).slice(2)}`,
            type: "function",
            function: { name: v.callTool, arguments: "{}" },
          },
        ],
      };
      return fetch(`${url}/v1/calls/openai`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(message),
      });
    },
    check: (_v, status, body) => status === 200 && body.includes("invalid_arguments"),
  },
};

/** One request: its wall time and the CPU time the whole wrangler dev tree spent meanwhile (ms). */
async function measure(server: DevServer, v: Variant, kind: string): Promise<{ ms: number; cpu: number }> {
  const request = FIRSTS[kind]!;
  const cpu0 = treeCpuPreciseMs(server.process.pid!);
  const t0 = performance.now();
  const res = await request.send(server.url, v);
  const body = await res.text();
  const ms = performance.now() - t0;
  const cpu = treeCpuPreciseMs(server.process.pid!) - cpu0;
  if (!request.check(v, res.status, body))
    throw new Error(`${v.name}: ${kind} answered ${res.status}: ${body.slice(0, 300)}`);
  return { ms, cpu };
}

async function firstRequest(v: Variant, run: number, kind: string): Promise<void> {
  const server = await startDev({ app: v.app, home: resolve(dir, "home", String(run)), config: v.config });
  try {
    await waitReady(server);
    for (const [into, m] of [
      [v.first, await measure(server, v, kind)],
      [v.warm, await measure(server, v, kind)],
    ] as const) {
      (into[kind] ??= { ms: [], cpu: [] }).ms.push(m.ms);
      into[kind]!.cpu.push(m.cpu);
    }
  } finally {
    await stopDev(server);
  }
}

function report(variants: Variant[], load: number): void {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const rows = variants.map((v) => {
    const text = v.vars.TOOLGATE_CONFIG;
    return {
      tenant: v.name,
      tools: v.tools,
      "TOOLGATE_CONFIG KB (gzip)": text
        ? `${kb(text.length)} (${kb(gzipSync(text).length)})`
        : v.name.includes("bundled")
          ? "— (bundled)"
          : "— (embedded)",
      "bundle gzip KB": v.gzipKb.toFixed(1),
      "startup CPU ms (native)": `${median(v.startup).toFixed(1)} (${median(v.native).toFixed(1)})`,
      "each startup ms": v.startup.map((ms) => ms.toFixed(1)).join(", "),
    };
  });
  console.log(table(rows));
  const firsts =
    FIRST_RUNS === 0
      ? []
      : variants.flatMap((v) =>
          Object.keys(FIRSTS).map((kind) => {
            // Each build's tenants beside that build's demo.
            const demo = variants.find((d) => d.tools === DEMO_TOOLS && d.app === v.app)!;
            const [first, warm, demoFirst] = [v.first[kind]!, v.warm[kind]!, demo.first[kind]!];
            const versus = (of: (t: Timings) => number[]) =>
              v === demo ? "—" : `${(median(of(first)) - median(of(demoFirst))).toFixed(0)}`;
            return {
              tenant: v.name,
              "first request": kind,
              "first CPU ms": median(first.cpu).toFixed(0),
              "− demo's": versus((t) => t.cpu),
              "first wall ms": median(first.ms).toFixed(0),
              "− demo's ": versus((t) => t.ms),
              "warm CPU / wall ms": `${median(warm.cpu).toFixed(0)} / ${median(warm.ms).toFixed(0)}`,
              "each first CPU ms": first.cpu.map((ms) => ms.toFixed(0)).join(", "),
            };
          }),
        );
  if (firsts.length > 0) console.log(`\n${table(firsts)}`);
  console.log(
    `\nstartup CPU: median of ${RUNS} profiles; first/warm: median of ${FIRST_RUNS} fresh wrangler dev starts per request kind, rounds alternating the tenants;`,
  );
  console.log(
    `CPU: the whole wrangler dev tree's during the request (/proc schedstat); load average ${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  );
  console.log(
    "A var config is a binding, not code: the bundle stays the same and no JS reads it at startup. A bundled one is",
  );
  console.log(
    "a JSON module of the bundle, and, where the build precomputes listings, a text module beside it that the first",
  );
  console.log(
    "listing imports. Either is parsed on the isolate's first request, which builds only the tools it needs (a listing",
  );
  console.log("built at runtime: all of them; precomputed: none), once per isolate.");
  const over = variants.filter((v) => (v.vars.TOOLGATE_CONFIG?.length ?? 0) > VAR_LIMIT_KB * 1024).map((v) => v.name);
  if (over.length)
    console.log(
      `Cloudflare limits one environment variable to ${VAR_LIMIT_KB} KB: ${over.join(", ")} run under wrangler dev but exceed it when deployed.`,
    );
}

async function main(): Promise<void> {
  const load = await waitForQuiet();
  const builds: [app: string, suffix: string][] = [[snapshot(dir), ""]];
  // BASE=<git ref>: that build's tenants too, in the same rounds.
  if (BASE) builds.push([snapshotOf(BASE, resolve(dir, "base")), ` (${BASE})`]);
  const variants = builds.flatMap(([app, suffix]) => [
    variant(app, `demo${suffix}`, DEMO_TOOLS, { TOOLGATE_DEMO: "true" }),
    ...SIZES.flatMap((n) => [
      ...(PATHS.includes("var")
        ? [
            variant(app, `${n} HTTP tools${suffix}`, n, {
              TOOLGATE_DEMO: "false",
              TOOLGATE_CONFIG: JSON.stringify(httpToolsConfig(n)),
            }),
          ]
        : []),
      ...(PATHS.includes("bundled")
        ? [
            variant(
              app,
              `${n} HTTP tools, bundled${suffix}`,
              n,
              { TOOLGATE_DEMO: "false" },
              bundleTenant(app, `growth${n}`, httpToolsConfig(n)),
            ),
          ]
        : []),
    ]),
  ]);
  // RUNS=0: first requests only (no startup profiles, no bundle). Profiles alternate across the
  // variants, round by round, as the first requests do.
  const measured = RUNS > 0 ? variants : [];
  const bundles = measured.map((v) => {
    const out = resolve(dir, "out", v.name.replace(/\W+/g, "-"));
    v.gzipKb = bundleKb(out, ["--config", v.config]).gzip;
    return { v, out, bundle: startupBundle(out, ["--config", v.config]) };
  });
  for (let run = 0; run < RUNS; run++) {
    for (const { v, out, bundle } of bundles) {
      const profile = startupProfile(bundle, resolve(out, `startup-${run}.cpuprofile`));
      v.startup.push(activeMs(profile));
      v.native.push(nativeMs(profile));
    }
  }
  // Round by round across the variants, so background load hits them alike.
  for (let run = 0; run < FIRST_RUNS; run++)
    for (const kind of Object.keys(FIRSTS)) for (const v of variants) await firstRequest(v, run, kind);
  report(variants, load);
}

await main();
