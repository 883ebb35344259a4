/**
 * A fixed-bucket latency histogram, as the ledger's per-minute metrics keep it: bucket 0 holds
 * durations up to 1 ms, bucket i (1–39) those in (2^((i−1)/2), 2^(i/2)] ms, bucket 40 the rest (over
 * ~12 minutes). Each bound is √2 times the one before, so a percentile read from it (the upper bound of
 * the bucket it falls in) is never below the true value and at most 41% above it.
 */
export const HISTOGRAM_BUCKETS = 41;

/** Metrics are kept per minute. */
export const MINUTE_MS = 60_000;

/** The upper bound in ms of each bucket but the last (which has none). */
export const BUCKET_BOUNDS_MS: readonly number[] = /* @__PURE__ */ Array.from(
  { length: HISTOGRAM_BUCKETS - 1 },
  (_, i) => 2 ** (i / 2),
);

/** The bucket a duration in ms falls in. */
export function bucketOf(ms: number): number {
  if (!(ms > 1)) return 0;
  const i = Math.ceil(2 * Math.log2(ms));
  // Rounding near a bound may land one bucket high.
  const bucket = i > 1 && ms <= BUCKET_BOUNDS_MS[i - 1]! ? i - 1 : i;
  return Math.min(bucket, HISTOGRAM_BUCKETS - 1);
}

/**
 * The q-quantile (0 < q ≤ 1) of the durations a histogram counted: the upper bound of the bucket it
 * falls in, or the largest duration seen when that is lower (or the bucket is the last). Null when empty.
 */
export function quantileOf(counts: readonly number[], q: number, maxMs: number): number | null {
  let total = 0;
  for (const n of counts) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return Math.min(BUCKET_BOUNDS_MS[i] ?? maxMs, maxMs);
  }
  return maxMs;
}
