// The statistics of bench/gates.ts against known answers: samples drawn with a known median.
import { describe, expect, it } from "vitest";
import { median, ratioOfMedians, seededRandom } from "../../../bench/lib/paired";

/** n draws of `center` plus skewed noise whose median is 0 (exponential, scale 2, minus its median). */
function draws(n: number, center: number, random: () => number): number[] {
  return Array.from({ length: n }, () => center - 2 * Math.log(1 - random()) - 2 * Math.LN2);
}

describe("ratioOfMedians", () => {
  it("finds a ratio of 1 for two samples of one distribution, and 4/3 for medians 4 and 3", () => {
    const random = seededRandom(7);
    const same = ratioOfMedians(draws(1_500, 3, random), draws(1_500, 3, random));
    expect(same.ratio.low).toBeLessThan(1);
    expect(same.ratio.high).toBeGreaterThan(1);
    const shifted = ratioOfMedians(draws(1_500, 4, random), draws(1_500, 3, random));
    expect(shifted.ratio.low).toBeGreaterThan(1);
    expect(shifted.ratio.low).toBeLessThan(4 / 3);
    expect(shifted.ratio.high).toBeGreaterThan(4 / 3);
    expect(shifted.numerator.low).toBeLessThan(4);
    expect(shifted.numerator.high).toBeGreaterThan(4);
  });

  it("covers the true ratio about as often as its level says", () => {
    let covered = 0;
    const trials = 40;
    for (let seed = 1; seed <= trials; seed++) {
      const random = seededRandom(seed * 101);
      const { ratio } = ratioOfMedians(draws(300, 4, random), draws(300, 3, random), { resamples: 400, seed });
      if (ratio.low <= 4 / 3 && 4 / 3 <= ratio.high) covered++;
    }
    // 95% expected (38 of 40); fewer than 34 would mean the interval is too narrow.
    expect(covered).toBeGreaterThanOrEqual(34);
  });

  it("with blocks, covers the true ratio far more often when neighbouring cycles share a drift", () => {
    // Each run of 20 cycles shares an offset of the numerator (symmetric around 0, so its median stays 4):
    // single-cycle resampling takes the 600 cycles as independent and its interval misses 4/3 about half the time.
    const coverage = (block: number) => {
      let covered = 0;
      for (let seed = 1; seed <= 30; seed++) {
        const random = seededRandom(seed * 977);
        const num = draws(600, 4, random);
        for (let start = 0; start < num.length; start += 20) {
          const offset = (random() - 0.5) * 6;
          for (let i = start; i < start + 20; i++) num[i]! += offset;
        }
        const { ratio } = ratioOfMedians(num, draws(600, 3, random), { resamples: 300, seed, block });
        if (ratio.low <= 4 / 3 && 4 / 3 <= ratio.high) covered++;
      }
      return covered;
    };
    expect(coverage(1)).toBeLessThanOrEqual(16);
    expect(coverage(20)).toBeGreaterThanOrEqual(20);
  });

  it("narrows as the samples grow (about 1/√n)", () => {
    const random = seededRandom(3);
    const width = (n: number) => {
      const { ratio } = ratioOfMedians(draws(n, 4, random), draws(n, 3, random));
      return ratio.high - ratio.low;
    };
    const small = width(250);
    const large = width(2_000);
    expect(large).toBeLessThan(small / 2);
    expect(large).toBeGreaterThan(small / 5);
  });

  it("resamples cycles whole: a numerator that is twice its own cycle's denominator gives exactly 2", () => {
    const den = draws(500, 3, seededRandom(11));
    const { ratio } = ratioOfMedians(
      den.map((d) => 2 * d),
      den,
    );
    expect(ratio).toEqual({ value: 2, low: 2, high: 2 });
  });

  it("counts a resample whose denominator vanished as an infinite ratio, and refuses unpaired samples", () => {
    const { ratio } = ratioOfMedians([1, 1, 1], [-1, 0, 1]);
    expect(ratio.value).toBe(Infinity);
    expect(() => ratioOfMedians([1, 2], [1])).toThrow(/2 and 1 samples/);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});
