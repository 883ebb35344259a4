/**
 * Cold start of the whole Worker against its targets: startup CPU (median of several
 * `wrangler check startup` profiles, active time = every sample but idle) and the bundle's gzip size
 * (`wrangler deploy --dry-run`). Exit code 1 when a target is missed.
 *   npm run bench:startup              5 profiles of the default (demo) Worker
 *   npm run bench:startup -- --runs=9 --env=acme
 */
import { resolve } from "node:path";
import { median } from "./lib/load";
import { bundleKb, startupMs } from "./lib/startup-measure";

const TARGET_STARTUP_MS = 10;
const TARGET_GZIP_KB = 120;

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const runs = Number(option("runs") ?? 5);
const envArgs = option("env") ? ["--env", option("env")!] : [];
const OUT = resolve(".tmp/bench-startup");

const times = startupMs(runs, OUT, envArgs);
const startup = median(times);
const size = bundleKb(OUT, envArgs);
const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
console.log(
  `startup CPU: median ${startup.toFixed(1)} ms of ${runs} runs [${times.map((t) => t.toFixed(1)).join(", ")}], target ≤ ${TARGET_STARTUP_MS} ms: ${verdict(startup <= TARGET_STARTUP_MS)}`,
);
console.log(
  `bundle: ${size.raw.toFixed(0)} KB, gzip ${size.gzip.toFixed(1)} KB, target ≤ ${TARGET_GZIP_KB} KB: ${verdict(size.gzip <= TARGET_GZIP_KB)}`,
);
process.exitCode = startup <= TARGET_STARTUP_MS && size.gzip <= TARGET_GZIP_KB ? 0 : 1;
