/**
 * A small benchmark harness: warm up, then time rounds of N operations and report the median ns per
 * operation. Medians over rounds, because machines here are shared and noisy.
 */
export interface Measurement {
  name: string;
  nsPerOp: number;
  rounds: number[];
}

export interface BenchOptions {
  /** Operations per round. */
  ops: number;
  rounds?: number;
  warmupRounds?: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function measure(name: string, op: () => unknown, options: BenchOptions): Promise<Measurement> {
  const rounds = options.rounds ?? 15;
  const warmup = options.warmupRounds ?? 5;
  const samples: number[] = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < options.ops; i++) {
      const value = op();
      if (value instanceof Promise) await value;
    }
    const elapsed = Number(process.hrtime.bigint() - start);
    if (r >= warmup) samples.push(elapsed / options.ops);
  }
  return { name, nsPerOp: median(samples), rounds: samples };
}

/** Interleave candidates round by round, so background load hits them alike. */
export async function compare(
  candidates: Array<{ name: string; op: () => unknown }>,
  options: BenchOptions,
): Promise<Measurement[]> {
  const rounds = options.rounds ?? 15;
  const results = candidates.map((c) => ({ name: c.name, samples: [] as number[] }));
  for (let r = 0; r < (options.warmupRounds ?? 5) + rounds; r++) {
    for (let c = 0; c < candidates.length; c++) {
      const m = await measure(candidates[c]!.name, candidates[c]!.op, { ops: options.ops, rounds: 1, warmupRounds: 0 });
      if (r >= (options.warmupRounds ?? 5)) results[c]!.samples.push(m.nsPerOp);
    }
  }
  return results.map((r) => ({ name: r.name, nsPerOp: median(r.samples), rounds: r.samples }));
}

export function table(rows: Array<Record<string, string | number>>): string {
  const keys = Object.keys(rows[0] ?? {});
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  return [
    line(keys),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(keys.map((k) => String(r[k])))),
  ].join("\n");
}

export const fmt = (ns: number) => (ns >= 10_000 ? `${(ns / 1000).toFixed(1)} µs` : `${Math.round(ns)} ns`);
