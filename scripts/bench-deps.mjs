// The bench package (bench/package.json, its own lock file): the peer libraries, the load generator and
// the MCP conformance suite that only the benches, the peer comparisons and the conformance run use, so
// `npm install` does not install them. Installed when a bench entry runs (scripts/run-ts.mjs) and by the
// npm scripts that need it (conformance, bench typecheck). Usage: node scripts/bench-deps.mjs
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = fileURLToPath(new URL("../bench", import.meta.url));

/**
 * Installs the bench package (npm ci --prefix bench) when it is missing or its lock file changed since
 * the last install (npm ci writes node_modules/.package-lock.json last); otherwise does nothing.
 */
export function ensureBenchPackage() {
  const installed = join(BENCH_DIR, "node_modules/.package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(BENCH_DIR, "package-lock.json")).mtimeMs)
    return;
  console.log("bench: installing the bench package (npm ci --prefix bench)");
  const run = spawnSync("npm", ["ci", "--prefix", BENCH_DIR, "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (run.status !== 0) throw new Error(`npm ci --prefix bench failed (${run.error?.message ?? `exit ${run.status}`})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureBenchPackage();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
