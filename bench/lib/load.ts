import { availableParallelism, loadavg } from "node:os";

/**
 * Waits (at most `maxWaitS`) while the machine's 1-minute load average is above `limit`: the benches
 * share a small machine with other engineers' test suites, and a timed run during one measures them.
 * Returns the load average it starts with, for the report.
 */
export async function waitForQuiet(limit = Number(process.env.BENCH_MAX_LOAD ?? 8), maxWaitS = 120): Promise<number> {
  const end = performance.now() + maxWaitS * 1000;
  while (loadavg()[0]! > limit && performance.now() < end) {
    console.log(`load average ${loadavg()[0]!.toFixed(1)} > ${limit} on ${availableParallelism()} cores: waiting…`);
    await new Promise((r) => setTimeout(r, 10_000));
  }
  return loadavg()[0]!;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
