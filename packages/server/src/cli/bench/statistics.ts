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
 * Percentile bootstrap of a statistic: resample with replacement, take each resample's statistic,
 * report the 2.5th and 97.5th percentiles of those. With one sample the interval is that sample.
 * `statistic` gets each resample sorted.
 */
export function bootstrapInterval(samples: readonly number[], statistic: (sorted: ArrayLike<number>) => number, options: BootstrapOptions = {}): [number, number] {
  const sorted = sortedFinite(samples);
  const n = sorted.length;
  if (n === 1) return [sorted[0]!, sorted[0]!];
  const resamples = Math.min(Math.max(Math.floor(options.resamples ?? 2000), 100), 20_000);
  const random = mulberry32(options.seed ?? DEFAULT_SEED);
  const values = new Float64Array(resamples);
  const draw = new Float64Array(n);
  for (let r = 0; r < resamples; r++) {
    // Drawing indices into the sorted array keeps results independent of input order.
    for (let i = 0; i < n; i++) draw[i] = sorted[Math.floor(random() * n)]!;
    draw.sort();
    values[r] = statistic(draw);
  }
  values.sort();
  const at = (q: number) => values[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return [at(0.025), at(0.975)];
}

/** Bootstrap 95% percentile interval of the median. */
export function bootstrapMedianInterval(samples: readonly number[], options: BootstrapOptions = {}): [number, number] {
  return bootstrapInterval(samples, medianOfSorted, options);
}

/** Nearest-rank p95 of sorted samples. */
export function p95OfSorted(sorted: ArrayLike<number>): number {
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!;
}

/**
 * Percentile bootstrap over blocks: resample whole blocks with replacement, pool their samples,
 * take the statistic (times a factor drawn from `factors`, when given: the machine's speed, see
 * recommendation-stability.ts). For samples that are not independent within a block: the
 * latencies of one burst queue behind each other (the k-th of a WASM burst waits for the k-1
 * before it), so the burst is the unit that repeats, and resampling single latencies would
 * understate the spread from one burst to the next. With one block and no factors the interval
 * is that block's statistic.
 */
export function bootstrapBlocksInterval(
  blocks: ReadonlyArray<readonly number[]>,
  statistic: (sorted: ArrayLike<number>) => number,
  options: BootstrapOptions & { factors?: readonly number[] } = {},
): [number, number] {
  if (blocks.length === 0 || blocks.some((b) => b.length === 0)) throw new RangeError('no samples');
  const checked = blocks.map((b) => sortedFinite(b));
  const factors = options.factors && options.factors.length > 0 ? sortedFinite(options.factors) : [1];
  const resamples = Math.min(Math.max(Math.floor(options.resamples ?? 2000), 100), 20_000);
  const random = mulberry32(options.seed ?? DEFAULT_SEED);
  const values = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    // The factor first, drawn as recommendation-stability.ts draws it.
    const factor = factors[Math.floor(random() * factors.length)]!;
    values[r] = factor * statistic(drawBlocks(checked, random));
  }
  values.sort();
  const at = (q: number) => values[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return [at(0.025), at(0.975)];
}

/** One resample: `blocks.length` blocks drawn with replacement, pooled and sorted. */
export function drawBlocks(blocks: ReadonlyArray<ArrayLike<number>>, random: () => number): Float64Array {
  const picks = Array.from({ length: blocks.length }, () => blocks[Math.floor(random() * blocks.length)]!);
  const pooled = new Float64Array(picks.reduce((n, b) => n + b.length, 0));
  let k = 0;
  for (const b of picks) for (let i = 0; i < b.length; i++) pooled[k++] = b[i]!;
  return pooled.sort();
}

/** Bootstrap 95% interval of the nearest-rank p95 of blocks of samples (bursts): the figure a latency budget is judged by. */
export function bootstrapP95Interval(blocks: ReadonlyArray<readonly number[]>, options: BootstrapOptions & { factors?: readonly number[] } = {}): [number, number] {
  return bootstrapBlocksInterval(blocks, p95OfSorted, options);
}

export function summarize(samples: readonly number[], options: BootstrapOptions = {}): Summary {
  const sorted = sortedFinite(samples);
  return {
    n: sorted.length,
    median: medianOfSorted(sorted),
    p95: p95OfSorted(sorted),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean: sorted.reduce((sum, x) => sum + x, 0) / sorted.length,
    medianCi95: bootstrapMedianInterval(sorted, options),
  };
}
