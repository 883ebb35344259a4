/**
 * Interleaved timing for candidates of very different speeds: each gets its own operations per round
 * (calibrated so a round lasts about the same time for all), and every round visits every candidate
 * in turn, so background load on this shared machine hits them alike. Medians over rounds.
 */
/**
 * The clock: "cpu" (default) — this process's user+system CPU time, all its threads (GC included) —
 * or "wall" (CLOCK=wall). On a shared machine wall time also counts other processes' time slices:
 * there, repeated wall runs disagreed by 2× while CPU-time ratios repeated within ~10%. CPU time
 * leaves out time spent idle on timers; none of the measured paths waits on one.
 */
export type Clock = "wall" | "cpu";
export const CLOCK: Clock = process.env.CLOCK === "wall" ? "wall" : "cpu";

const now = (clock: Clock) => {
  if (clock === "wall") return Number(process.hrtime.bigint());
  const usage = process.cpuUsage();
  return (usage.user + usage.system) * 1000;
};

/** ns per operation over one run of `ops` operations. */
async function timeOps(op: () => unknown, ops: number, clock: Clock): Promise<number> {
  const start = now(clock);
  for (let i = 0; i < ops; i++) {
    const value = op();
    if (value instanceof Promise) await value;
  }
  return (now(clock) - start) / ops;
}

export interface Candidate {
  name: string;
  op: () => unknown;
}

export interface Timed {
  name: string;
  nsPerOp: number;
  /** Spread: interquartile range / median over the measured rounds. */
  spread: number;
}

/** The q-quantile, linearly interpolated. */
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
};

/**
 * Runs op for about `ms` milliseconds of this process's CPU time (not wall time: on a loaded machine
 * that can be mostly other processes' turns), so the JIT's optimising tiers are in place before timing.
 */
async function warmUp(op: () => unknown, ms: number): Promise<void> {
  const end = now("cpu") + ms * 1e6;
  for (let ops = 1; now("cpu") < end; ops = Math.min(ops * 2, 4096)) await timeOps(op, ops, "wall");
}

/** How many operations fill about `ms` milliseconds (at least one). */
async function calibrate(op: () => unknown, ms: number): Promise<number> {
  let ops = 1;
  for (;;) {
    const ns = await timeOps(op, ops, "wall");
    if (ns * ops >= (ms * 1e6) / 4 || ops >= 1 << 22) return Math.max(1, Math.round((ms * 1e6) / ns));
    ops *= 2;
  }
}

export interface InterleaveOptions {
  roundMs?: number;
  /** CPU time each candidate runs before calibration. Default 300 ms. */
  warmMs?: number;
  rounds?: number;
  warmupRounds?: number;
  clock?: Clock;
}

export async function interleave(candidates: Candidate[], options: InterleaveOptions = {}): Promise<Timed[]> {
  const clock = options.clock ?? CLOCK;
  const roundMs = options.roundMs ?? 40;
  const rounds = options.rounds ?? 11;
  const warmup = options.warmupRounds ?? 3;
  const ops: number[] = [];
  for (const c of candidates) {
    await warmUp(c.op, options.warmMs ?? 300);
    ops.push(await calibrate(c.op, roundMs));
  }
  const samples = candidates.map(() => [] as number[]);
  for (let r = 0; r < warmup + rounds; r++) {
    for (let i = 0; i < candidates.length; i++) {
      const ns = await timeOps(candidates[i]!.op, ops[i]!, clock);
      if (r >= warmup) samples[i]!.push(ns);
    }
  }
  return candidates.map((c, i) => {
    const mid = quantile(samples[i]!, 0.5);
    return { name: c.name, nsPerOp: mid, spread: (quantile(samples[i]!, 0.75) - quantile(samples[i]!, 0.25)) / mid };
  });
}
