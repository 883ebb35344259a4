/**
 * `npm run bench`: the core targets (bench/core.ts), toolgate against peer
 * runtimes (bench/peers.ts) and scale (bench/scale.ts), one after the other. With --all, the other
 * bench/*.ts scripts (HTTP, gates, startup …) run after them, each as its own process, bounded in time.
 *   npm run bench                 in-process benches (~1–2 minutes)
 *   npm run bench -- --all        plus every other bench script (BENCH_TIMEOUT_S each, default 240)
 *   npm run bench -- --only=peers one of core, peers, scale
 * Env: CLOCK=wall times peers and scale by wall time instead of process CPU time; PEER_ROUNDS, PEERS.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { runCoreBench } from "./core";
import { table } from "./harness";
import { printPeerReport, runPeerBench } from "./peers";
import { CLOCK } from "./peers/rounds";
import { printScaleReport, runScaleBench } from "./scale";

const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const all = args.includes("--all");
const timeoutS = Number(process.env.BENCH_TIMEOUT_S ?? 240);

/** Files in bench/ that are not standalone scripts (or are run in-process above). */
const IN_PROCESS = new Set(["index.ts", "core.ts", "peers.ts", "scale.ts", "harness.ts"]);
const isScript = (f: string) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !IN_PROCESS.has(f);

const heading = (text: string) => console.log(`\n## ${text}\n`);

/** Runs one bench script in its own process group; kills that group when it overruns. */
function runScript(file: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["scripts/run-ts.mjs", `bench/${file}`], {
      stdio: "inherit",
      detached: true,
    });
    const timer = setTimeout(() => {
      console.log(`bench/${file}: stopped after ${timeoutS} s (BENCH_TIMEOUT_S)`);
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    }, timeoutS * 1000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      done(signal ? `stopped (${signal})` : code === 0 ? "ok" : `exit ${code}`);
    });
  });
}

const started = performance.now();
console.log(
  `toolgate benchmarks — Node ${process.version}, ${process.platform}/${process.arch}, peers and scale timed by ${CLOCK === "cpu" ? "process CPU time" : "wall time"}`,
);

if (!only || only === "core") {
  heading("Core: decode → pipeline → encode against the floor (bench/core.ts)");
  console.log(table(await runCoreBench()));
}
if (!only || only === "peers") {
  heading("Peers: same workload, same run (bench/peers.ts)");
  printPeerReport(await runPeerBench());
}
if (!only || only === "scale") {
  heading("Scale (bench/scale.ts)");
  printScaleReport(await runScaleBench());
}
if (all) {
  const scripts = readdirSync("bench").filter(isScript).sort();
  const outcomes: Array<Record<string, string>> = [];
  for (const file of scripts) {
    heading(`bench/${file}`);
    outcomes.push({ script: `bench/${file}`, outcome: await runScript(file) });
  }
  heading("Scripts run with --all");
  console.log(table(outcomes));
}
console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s`);
