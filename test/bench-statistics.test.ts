import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../packages/server/src/cli/bench/prng.js';
import { bootstrapMedianInterval, median, p95, quantile, summarize } from '../packages/server/src/cli/bench/statistics.js';

describe('bench statistics', () => {
  it('median of odd, even, unsorted and single inputs', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([5, 5, 5, 5])).toBe(5);
  });

  it('p95 is nearest-rank: an observed sample, the maximum for small samples', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(p95(hundred)).toBe(95);
    expect(p95([10, 20, 30, 40, 50, 60, 70, 80, 90])).toBe(90);
    expect(p95([42])).toBe(42);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
  });

  it('refuses empty input, non-finite samples and bad quantiles', () => {
    expect(() => median([])).toThrow(RangeError);
    expect(() => p95([1, Number.NaN])).toThrow(RangeError);
    expect(() => median([1, Infinity])).toThrow(RangeError);
    expect(() => quantile([1], 0)).toThrow(RangeError);
    expect(() => quantile([1], 1.5)).toThrow(RangeError);
  });

  it('mulberry32 is deterministic per seed and in [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(2)()).not.toBe(xs[0]);
  });

  const samples = [12.1, 11.8, 12.4, 13.0, 11.9, 12.2, 14.8, 12.0, 12.3, 11.7, 12.6, 25.0, 12.2];

  it('bootstrap interval of the median is reproducible with the seed, order-independent, and contains the median', () => {
    const first = bootstrapMedianInterval(samples, { seed: 7 });
    expect(bootstrapMedianInterval(samples, { seed: 7 })).toEqual(first);
    expect(bootstrapMedianInterval([...samples].reverse(), { seed: 7 })).toEqual(first);
    const m = median(samples);
    expect(first[0]).toBeLessThanOrEqual(m);
    expect(first[1]).toBeGreaterThanOrEqual(m);
    // Within the sample range, and narrower than it (the outlier 25.0 does not drag the median).
    expect(first[0]).toBeGreaterThanOrEqual(Math.min(...samples));
    expect(first[1]).toBeLessThan(25);
  });

  it('bootstrap edge cases: one sample, identical samples', () => {
    expect(bootstrapMedianInterval([3])).toEqual([3, 3]);
    expect(bootstrapMedianInterval([4, 4, 4, 4])).toEqual([4, 4]);
    expect(() => bootstrapMedianInterval([])).toThrow(RangeError);
  });

  it('summarize puts it together', () => {
    const s = summarize([1, 2, 3, 4, 100], { seed: 1, resamples: 500 });
    expect(s).toMatchObject({ n: 5, median: 3, p95: 100, min: 1, max: 100, mean: 22 });
    expect(s.medianCi95[0]).toBeLessThanOrEqual(3);
    expect(s.medianCi95[1]).toBeGreaterThanOrEqual(3);
  });
});
