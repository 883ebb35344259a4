/**
 * The load suite: starts the Worker (the demo tenant) with wrangler's dev server on 127.0.0.1, sends
 * a mix of calls across parallel, sequential, limited and approval tools, then checks that every
 * record is terminal, no gate holds a slot and no limit was exceeded, and prints the figures.
 *
 *   npm run test:load                    5,000 calls, 32 at a time, at most 300 s of sending
 *   npm run test:load -- --calls=500     the short CI run
 *   options: --calls= --concurrency= --seconds= --seed= --url=<a running Worker with the demo tenant>
 *
 * Exits non-zero when any check fails; the last line is `load: N passed, M failed`.
 */
import { startDevServer, type DevServer } from "../test/servers/wrangler-dev";
import { runLoad, type RunStats } from "./load-client";
import { percentile, runChecks, type Check } from "./load-checks";

/** The demo tools' concurrency limits (tools/sleep.ts, tools/sleep_pool.ts). */
const LIMITS = { sleep: 1, sleep_pool: 3 };

function option(name: string, fallback: number): number;
function option(name: string, fallback: string): string;
function option(name: string, fallback: number | string): number | string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) return fallback;
  const value = arg.slice(name.length + 3);
  if (typeof fallback === "string") return value;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

function figures(stats: RunStats, records: any[]): void {
  const seconds = stats.elapsedMs / 1000;
  const all = stats.latencies.map((l) => l.ms).sort((a, b) => a - b);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const stopped = stats.stoppedByTime ? " (stopped by the time bound)" : "";
  console.log(
    `\n${stats.calls.length} calls in ${stats.latencies.length} requests over ${seconds.toFixed(1)} s${stopped}`,
  );
  const callRate = (stats.calls.length / seconds).toFixed(0);
  const requestRate = (stats.latencies.length / seconds).toFixed(0);
  const latency = `p50 ${ms(percentile(all, 50))}, p99 ${ms(percentile(all, 99))}, max ${ms(all.at(-1) ?? NaN)}`;
  console.log(`${callRate} calls/s, ${requestRate} requests/s; request latency ${latency}`);
  const rows: Record<string, Record<string, string | number>> = {};
  for (const tool of new Set(stats.calls.map((c) => c.call.tool))) {
    const single = stats.latencies
      .filter((l) => l.tools.length === 1 && l.tools[0] === tool)
      .map((l) => l.ms)
      .sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    for (const r of records.filter((r) => r.tool === tool)) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    rows[tool] = {
      calls: stats.calls.filter((c) => c.call.tool === tool).length,
      "p50 ms": Number(percentile(single, 50).toFixed(1)),
      "p99 ms": Number(percentile(single, 99).toFixed(1)),
      ...statuses,
    };
  }
  console.table(rows);
  const byStatus: Record<string, number> = {};
  for (const r of records) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  console.log(
    `records by status: ${Object.entries(byStatus)
      .map(([s, n]) => `${s} ${n}`)
      .join(", ")}`,
  );
}

async function main(): Promise<number> {
  const calls = option("calls", 5_000);
  const concurrency = option("concurrency", 32);
  const seconds = option("seconds", 300);
  const seed = option("seed", 42);
  let url = option("url", "");
  let server: DevServer | undefined;
  const checks: Check[] = [];
  try {
    if (!url) {
      server = await startDevServer();
      url = server.url;
    }
    const tag = `load-${Date.now().toString(36)}`;
    console.log(`load: ${calls} calls, ${concurrency} at a time, at most ${seconds} s, against ${url} (seed ${seed})`);
    const stats = await runLoad({ base: url, calls, concurrency, seconds, tag, seed });
    figures(stats, await runChecks(url, tag, stats, LIMITS, checks));
  } catch (error) {
    checks.push({
      name: "the run completed",
      ok: false,
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  } finally {
    await server?.stop().catch(() => undefined);
  }
  console.log("");
  for (const c of checks) console.log(`${c.ok ? "✓" : "✗"} ${c.name}: ${c.detail}`);
  const failed = checks.filter((c) => !c.ok).length;
  console.log(`load: ${checks.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
