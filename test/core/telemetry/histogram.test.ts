import { describe, expect, it } from "vitest";
import { BUCKET_BOUNDS_MS, bucketOf, HISTOGRAM_BUCKETS, quantileOf } from "../../../src/telemetry/histogram";

describe("latency histogram", () => {
  it("puts each duration in the bucket whose bounds hold it", () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(Number.NaN)).toBe(0);
    expect(bucketOf(10 ** 9)).toBe(HISTOGRAM_BUCKETS - 1);
    for (let ms = 1.01; ms < 700_000; ms *= 1.07) {
      const i = bucketOf(ms);
      expect(ms).toBeLessThanOrEqual(BUCKET_BOUNDS_MS[i]!);
      expect(ms).toBeGreaterThan(BUCKET_BOUNDS_MS[i - 1]!);
    }
    for (const bound of BUCKET_BOUNDS_MS) expect(BUCKET_BOUNDS_MS[bucketOf(bound)]).toBe(bound);
  });

  it("reads percentiles never below the true value and at most 41% above it", () => {
    const durations = Array.from({ length: 1_000 }, (_, i) => 3 + ((i * 7919) % 997) * 1.3);
    const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    for (const ms of durations) counts[bucketOf(ms)]!++;
    const sorted = [...durations].sort((a, b) => a - b);
    const max = sorted[sorted.length - 1]!;
    for (const q of [0.5, 0.95, 0.99]) {
      const truth = sorted[Math.ceil(q * sorted.length) - 1]!;
      const read = quantileOf(counts, q, max)!;
      expect(read).toBeGreaterThanOrEqual(truth);
      expect(read).toBeLessThanOrEqual(truth * Math.SQRT2);
    }
    expect(quantileOf(counts, 1, max)).toBe(max);
    expect(quantileOf(new Array(HISTOGRAM_BUCKETS).fill(0), 0.5, 0)).toBeNull();
  });
});
