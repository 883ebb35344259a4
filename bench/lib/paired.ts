/**
 * Paired latency differences and the ratio of two of them, with a bootstrap interval. A variant's
 * added latency is measured as the median of per-pair differences (its call and its baseline's call
 * back to back), so load that drifts between pairs cancels out; two such medians are compared as a
 * ratio whose interval comes from resampling whole cycles (one pair of each comparison), which keeps
 * whatever the pairs of one cycle share.
 */
import { prng } from "../../scripts/load-client";

export const median = (values: ArrayLike<number>): number => {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The p-th percentile (nearest rank) of values. */
export const percentile = (values: ArrayLike<number>, p: number): number => {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** A small seeded generator, so an interval can be computed again from the same samples. */
export const seededRandom = prng;

export interface Estimate {
  value: number;
  low: number;
  high: number;
}

export interface RatioEstimate {
  /** median(numerator) ÷ median(denominator), with its interval. */
  ratio: Estimate;
  numerator: Estimate;
  denominator: Estimate;
}

export interface BootstrapOptions {
  /** Resamples drawn. Default 2,000. */
  resamples?: number;
  /** Coverage of the interval. Default 0.95. */
  level?: number;
  seed?: number;
  /**
   * Consecutive cycles resampled together (a moving-block bootstrap). Default 1. Under load that
   * shifts over seconds neighbouring cycles are alike, and single cycles would make the interval too narrow.
   */
  block?: number;
}

/**
 * The ratio of the medians of two paired samples (numerator[i] and denominator[i] come from cycle i),
 * with percentile-bootstrap intervals of it and of each median. A resample whose denominator median
 * is not positive counts as an infinite ratio (the added latency it divides by vanished).
 */
export function ratioOfMedians(
  numerator: readonly number[],
  denominator: readonly number[],
  options: BootstrapOptions = {},
): RatioEstimate {
  const n = numerator.length;
  if (n === 0 || denominator.length !== n)
    throw new Error(`ratioOfMedians: ${n} and ${denominator.length} samples (want equal, > 0)`);
  const resamples = options.resamples ?? 2_000;
  const tail = (1 - (options.level ?? 0.95)) / 2;
  const random = seededRandom(options.seed ?? 1);
  const block = Math.max(1, Math.min(n, Math.floor(options.block ?? 1)));
  const num = new Float64Array(n);
  const den = new Float64Array(n);
  const ratios = new Float64Array(resamples);
  const nums = new Float64Array(resamples);
  const dens = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; ) {
      const start = Math.floor(random() * (n - block + 1));
      for (let k = 0; k < block && i < n; k++, i++) {
        num[i] = numerator[start + k]!;
        den[i] = denominator[start + k]!;
      }
    }
    nums[r] = median(num);
    dens[r] = median(den);
    ratios[r] = dens[r]! > 0 ? nums[r]! / dens[r]! : Infinity;
  }
  const interval = (value: number, draws: Float64Array): Estimate => {
    draws.sort();
    return {
      value,
      low: draws[Math.floor(tail * resamples)]!,
      high: draws[Math.min(resamples - 1, Math.ceil((1 - tail) * resamples) - 1)]!,
    };
  };
  const numMedian = median(numerator);
  const denMedian = median(denominator);
  return {
    ratio: interval(denMedian > 0 ? numMedian / denMedian : Infinity, ratios),
    numerator: interval(numMedian, nums),
    denominator: interval(denMedian, dens),
  };
}
