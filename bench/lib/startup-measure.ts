/**
 * What sets a Worker's cold start, measured with wrangler's own commands: startup CPU (the profile
 * of `wrangler check startup`, active samples) and the gzip size of the code `wrangler deploy
 * --dry-run` would upload. `extra` are wrangler flags choosing the Worker (--env, --config).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { NODE, WRANGLER } from "./wrangler-dev";

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

export function wrangler(args: string[]): void {
  const result = spawnSync(NODE, [WRANGLER, ...args], { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`wrangler ${args.join(" ").slice(0, 200)} failed:\n${result.stdout}\n${result.stderr}`);
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

/** The part of activeMs in "(program)" samples: native work of the runtime, outside any JS function. */
export function nativeMs(profile: CpuProfile): number {
  const native = new Set(
    profile.nodes.filter((node) => node.callFrame.functionName === "(program)").map((node) => node.id),
  );
  return (
    profile.samples.reduce((micros, id, i) => micros + (native.has(id) ? (profile.timeDeltas[i] ?? 0) : 0), 0) / 1000
  );
}

/**
 * The bundle of one build (`deploy --dry-run --outfile`), for `startupProfile` with --worker: `check
 * startup` alone would rebuild each time, and its inner build does not see --env or --config.
 */
export function startupBundle(out: string, extra: string[] = []): string {
  mkdirSync(out, { recursive: true });
  const bundle = join(out, "worker.bundle");
  wrangler(["deploy", "--dry-run", "--outfile", bundle, ...extra]);
  return bundle;
}

/** One `wrangler check startup` profile of a bundle, written to `file`. */
export function startupProfile(bundle: string, file: string): CpuProfile {
  wrangler(["check", "startup", "--worker", bundle, "--outfile", file]);
  return JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
}

/** `runs` startup profiles of one build. */
export function startupProfiles(runs: number, out: string, extra: string[] = []): CpuProfile[] {
  const bundle = startupBundle(out, extra);
  return Array.from({ length: runs }, (_, i) => startupProfile(bundle, join(out, `startup-${i}.cpuprofile`)));
}

/** Startup CPU (active ms) of `runs` profiles of one build. */
export function startupMs(runs: number, out: string, extra: string[] = []): number[] {
  return startupProfiles(runs, out, extra).map(activeMs);
}

/** KB of the code wrangler would upload (modules and wasm; source maps are not uploaded), raw and gzip. */
export function bundleKb(out: string, extra: string[] = []): { raw: number; gzip: number } {
  const dir = join(out, "dry");
  rmSync(dir, { recursive: true, force: true });
  wrangler(["deploy", "--dry-run", "--outdir", dir, ...extra]);
  let raw = 0;
  let gzip = 0;
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    // Every module uploaded: code, wasm and text (a bundled tenant's precomputed listings); not source maps.
    if (!/\.(m?js|wasm|txt)$/.test(file)) continue;
    const bytes = readFileSync(join(dir, file));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw: raw / 1024, gzip: gzip / 1024 };
}
