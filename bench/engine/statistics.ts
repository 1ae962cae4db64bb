/**
 * Small, dependency-free statistics for benchmark samples. Pure: no Node APIs, so the Lambda
 * handler and the CLI (and tests) share it.
 */
import { DEFAULT_SEED, mulberry32 } from './prng.js';

export interface Summary {
  n: number;
  median: number;
  /** Nearest-rank p95: a sample that was actually observed, never interpolated below one. */
  p95: number;
  min: number;
  max: number;
  mean: number;
  /** Bootstrap 95% percentile interval of the median (fixed seed, so reproducible). */
  medianCi95: [number, number];
}

function sortedFinite(samples: readonly number[]): number[] {
  if (samples.length === 0) throw new RangeError('no samples');
  for (const x of samples) if (!Number.isFinite(x)) throw new RangeError(`sample is not a finite number: ${x}`);
  return [...samples].sort((a, b) => a - b);
}

function medianOfSorted(sorted: ArrayLike<number>): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function median(samples: readonly number[]): number {
  return medianOfSorted(sortedFinite(samples));
}

/**
 * Nearest-rank quantile: the smallest sample with at least q of the samples at or below it.
 * For latency budgets this errs on the slow side (with 9 samples, p95 is the maximum).
 */
export function quantile(samples: readonly number[], q: number): number {
  if (!(q > 0 && q <= 1)) throw new RangeError('q must be in (0, 1]');
  const sorted = sortedFinite(samples);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export const p95 = (samples: readonly number[]): number => quantile(samples, 0.95);

export interface BootstrapOptions {
  /** Resamples; bounded to keep it cheap (default 2000, at most 20000). */
  resamples?: number;
  seed?: number;
}

/**
 * Percentile bootstrap of the median: resample with replacement, take each resample's median,
 * report the 2.5th and 97.5th percentiles of those. With one sample the interval is that sample.
 */
export function bootstrapMedianInterval(samples: readonly number[], options: BootstrapOptions = {}): [number, number] {
  const sorted = sortedFinite(samples);
  const n = sorted.length;
  if (n === 1) return [sorted[0]!, sorted[0]!];
  const resamples = Math.min(Math.max(Math.floor(options.resamples ?? 2000), 100), 20_000);
  const random = mulberry32(options.seed ?? DEFAULT_SEED);
  const medians = new Float64Array(resamples);
  const draw = new Float64Array(n);
  for (let r = 0; r < resamples; r++) {
    // Drawing indices into the sorted array keeps results independent of input order.
    for (let i = 0; i < n; i++) draw[i] = sorted[Math.floor(random() * n)]!;
    draw.sort();
    medians[r] = medianOfSorted(draw);
  }
  medians.sort();
  const at = (q: number) => medians[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return [at(0.025), at(0.975)];
}

export function summarize(samples: readonly number[], options: BootstrapOptions = {}): Summary {
  const sorted = sortedFinite(samples);
  return {
    n: sorted.length,
    median: medianOfSorted(sorted),
    p95: sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean: sorted.reduce((sum, x) => sum + x, 0) / sorted.length,
    medianCi95: bootstrapMedianInterval(sorted, options),
  };
}
