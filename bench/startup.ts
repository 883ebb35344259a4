/**
 * Cold start of the whole Worker against its targets: startup CPU (median of several
 * `wrangler check startup` profiles, active time = every sample but idle) and the bundle's gzip size
 * (`wrangler deploy --dry-run`). Exit code 1 when a target is missed.
 *   npm run bench:startup              5 profiles of the default (demo) Worker
 *   npm run bench:startup -- --runs=9 --env=acme
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const TARGET_STARTUP_MS = 25;
const TARGET_GZIP_KB = 150;

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const runs = Number(option("runs") ?? 5);
const envArgs = option("env") ? ["--env", option("env")!] : [];
const WRANGLER = resolve("node_modules/wrangler/bin/wrangler.js");
const OUT = resolve(".tmp/bench-startup");

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

function wrangler(...rest: string[]): void {
  const result = spawnSync(process.execPath, [WRANGLER, ...rest, ...envArgs], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrangler ${rest.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

/** Active startup time in ms: each sample lasts its time delta; idle samples do not count. */
export function activeMs(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
  let micros = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) micros += profile.timeDeltas[i] ?? 0;
  });
  return micros / 1000;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function startupMs(): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const file = join(OUT, `startup-${i}.cpuprofile`);
    wrangler("check", "startup", "--outfile", file);
    times.push(activeMs(JSON.parse(readFileSync(file, "utf8")) as CpuProfile));
  }
  return times;
}

/** Gzip size of the code wrangler would upload (modules and wasm; source maps are not uploaded). */
function bundleGzipKb(): { raw: number; gzip: number } {
  const dir = join(OUT, "dry");
  rmSync(dir, { recursive: true, force: true });
  wrangler("deploy", "--dry-run", "--outdir", dir);
  let raw = 0;
  let gzip = 0;
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    if (!/\.(m?js|wasm)$/.test(file)) continue;
    const bytes = readFileSync(join(dir, file));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw: raw / 1024, gzip: gzip / 1024 };
}

mkdirSync(OUT, { recursive: true });
const times = startupMs();
const startup = median(times);
const size = bundleGzipKb();
const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
console.log(`startup CPU: median ${startup.toFixed(1)} ms of ${runs} runs [${times.map((t) => t.toFixed(1)).join(", ")}], target ≤ ${TARGET_STARTUP_MS} ms: ${verdict(startup <= TARGET_STARTUP_MS)}`);
console.log(`bundle: ${size.raw.toFixed(0)} KB, gzip ${size.gzip.toFixed(1)} KB, target ≤ ${TARGET_GZIP_KB} KB: ${verdict(size.gzip <= TARGET_GZIP_KB)}`);
process.exitCode = startup <= TARGET_STARTUP_MS && size.gzip <= TARGET_GZIP_KB ? 0 : 1;
