/**
 * The Worker's startup in Node, as workerd does it: compile the bundle of `wrangler deploy --dry-run`
 * as an ES module (vm.SourceTextModule), evaluate it, then answer one request (GET /healthz over the
 * demo tenant: the tenant middleware runs for every request, so this is where anything deferred to
 * first use lands). Process CPU of each step, in fresh processes alternating between the bundles given
 * (round by round, order reversed every other round), medians. Steadier than `wrangler check startup`
 * profiles, which sample wall time, on a loaded machine.
 * Usage: node bench/startup-node.mjs <bundle.js> [<other bundle.js> …] [--runs=15]
 * (a bundle: `npx wrangler deploy --dry-run --env "" --outdir <dir>` then <dir>/index.js).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** One fresh process: the steps' CPU of one bundle, printed as JSON. */
async function child(file) {
  const vm = await import("node:vm");
  const code = readFileSync(file, "utf8");
  const url = pathToFileURL(file).href;
  // workerd's own module: the classes the bundle extends, made before any timing.
  class DurableObject {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }
  class WorkerEntrypoint extends DurableObject {}
  const workers = new vm.SyntheticModule(["DurableObject", "WorkerEntrypoint"], function () {
    this.setExport("DurableObject", DurableObject);
    this.setExport("WorkerEntrypoint", WorkerEntrypoint);
  });
  const importModuleDynamically = (specifier) => import(resolve(dirname(file), specifier));

  let start = process.cpuUsage();
  const module = new vm.SourceTextModule(code, { identifier: url, importModuleDynamically });
  const compile = cpuMs(start);
  await module.link((specifier) => {
    if (specifier === "cloudflare:workers") return workers;
    throw new Error(`unexpected import ${specifier}`);
  });
  start = process.cpuUsage();
  await module.evaluate();
  const evaluate = cpuMs(start);

  const app = module.namespace.default;
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
  start = process.cpuUsage();
  const response = await app.fetch(new Request("http://127.0.0.1/healthz"), { TOOLGATE_DEMO: "true" }, ctx);
  await response.text();
  const firstRequest = cpuMs(start);
  console.log(JSON.stringify({ compile, evaluate, firstRequest, status: response.status }));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function parent(files, runs) {
  const loadAtStart = loadavg()[0].toFixed(1);
  const samples = new Map(files.map((file) => [file, []]));
  for (let round = 0; round < runs; round++) {
    for (const file of round % 2 ? [...files].reverse() : files) {
      const run = spawnSync(
        process.execPath,
        ["--experimental-vm-modules", "--no-warnings", import.meta.filename, "--child", file],
        { encoding: "utf8" },
      );
      if (run.status !== 0) throw new Error(`${file}: ${run.stderr}`);
      samples.get(file).push(JSON.parse(run.stdout.trim().split("\n").at(-1)));
    }
  }
  console.log(
    `${runs} fresh processes per bundle, alternating; load average ${loadAtStart} → ${loadavg()[0].toFixed(1)}; medians, process CPU ms`,
  );
  console.log("bundle | compile | evaluate | compile + evaluate | first request (GET /healthz)");
  for (const [file, runsOf] of samples) {
    const of = (key) => median(runsOf.map((r) => r[key]));
    const both = median(runsOf.map((r) => r.compile + r.evaluate));
    // A bundle whose demo cannot be served (an empty catalogue) still times compile and evaluation.
    const statuses = [...new Set(runsOf.map((r) => r.status))].join(", ");
    console.log(
      `${file} | ${of("compile").toFixed(2)} | ${of("evaluate").toFixed(2)} | ${both.toFixed(2)} | ${of("firstRequest").toFixed(2)}${statuses === "200" ? "" : ` (answered ${statuses})`}`,
    );
  }
}

const args = process.argv.slice(2);
if (args[0] === "--child") await child(resolve(args[1]));
else {
  const runs = Number(args.find((a) => a.startsWith("--runs="))?.slice(7) ?? 15);
  const files = args.filter((a) => !a.startsWith("--"));
  if (files.length === 0)
    throw new Error("usage: node bench/startup-node.mjs <bundle.js> [<other bundle.js> …] [--runs=15]");
  parent(files, runs);
}
