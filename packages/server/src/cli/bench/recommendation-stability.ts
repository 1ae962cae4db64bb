/**
 * How much of a recommendation is the measurement's noise: the same rule (recommend.ts) rerun on
 * bootstrap resamples of what each candidate's p95 was taken from. Two sources of noise, both
 * resampled:
 *   - the bursts: whole bursts drawn with replacement and pooled (the latencies inside one burst
 *     queue behind each other; the burst is what repeats);
 *   - the machine's speed: every candidate's p95 times one factor drawn from the run's
 *     single-hash rounds (`speedFactors`, speedFactors() below). A shared machine that is busier
 *     a minute later slows every candidate at once, and the pick flips where a candidate sits
 *     near the budget: two quick runs minutes apart once recommended m=19456 t=3, then m=47104
 *     t=3, while the spread inside each run's bursts was small.
 * A pick that comes out in nearly every resample stands; one that trades places with another
 * candidate is a tie this run cannot settle, and the report says so. Pure: a fixed seed gives the
 * same answer for the same samples. A machine far busier in the next run than at any moment of
 * this one is beyond it: hence the notes on short runs and on the load average (run-bench.ts).
 */
import { mulberry32 } from './prng.js';
import { p95AtConcurrency, recommend, type RecommendationInput } from './recommend.js';
import { drawBlocks, median, p95OfSorted } from './statistics.js';
import type { RecommendationStability } from './types.js';

/** A pick made in at least this share of resamples is stable (the 95% of the intervals beside it). */
export const STABLE_SHARE = 0.95;

type Measured = RecommendationInput['candidates'][number];

export interface StabilityInput extends RecommendationInput {
  /**
   * Per candidate id, the blocks its p95 at `concurrency` was taken from: one per burst (its
   * latencies), or one per single hash when the recommendation read those. A candidate without
   * blocks keeps its measured p95 in every resample.
   */
  blocks: ReadonlyMap<string, ReadonlyArray<readonly number[]>>;
  /** How much slower or faster than usual the machine ran, per moment of the run (1: as usual); [1] for none. */
  speedFactors: readonly number[];
  resamples: number;
  seed: number;
}

/** The candidate with its p95 at `concurrency` replaced, where recommend() reads it. */
function withP95(c: Measured, concurrency: number, p95: number): Measured {
  if (c.burst && c.burst.size === concurrency) return { ...c, burst: { ...c.burst, wallMs: { ...c.burst.wallMs, p95 } } };
  if (concurrency === 1 && c.single) return { ...c, single: { ...c.single, wallMs: { ...c.single.wallMs, p95 } } };
  return c;
}

export function recommendationStability(input: StabilityInput): RecommendationStability {
  const resamples = Math.min(Math.max(Math.floor(input.resamples), 100), 20_000);
  const pick = recommend(input).candidateId ?? null;
  const own = input.candidates.filter((c) => c.backend === input.backend);
  const blocks = own.map((c) => {
    const list = input.blocks.get(c.id);
    // Only where recommend() reads a p95: a candidate not measured at this concurrency stays rejected.
    return list && list.length > 0 && p95AtConcurrency(c, input.concurrency) !== undefined ? list : undefined;
  });
  const random = mulberry32(input.seed);
  const counts = new Map<string | null, number>();
  const factors = input.speedFactors.length > 0 ? input.speedFactors : [1];
  for (let r = 0; r < resamples; r++) {
    const factor = factors[Math.floor(random() * factors.length)]!;
    const candidates = own.map((c, i) => {
      const list = blocks[i];
      return list ? withP95(c, input.concurrency, factor * p95OfSorted(drawBlocks(list, random))) : c;
    });
    const outcome = recommend({ ...input, candidates }).candidateId ?? null;
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  const outcomes = [...counts]
    .map(([candidateId, count]) => ({ candidateId, share: count / resamples }))
    .sort((a, b) => b.share - a.share || String(a.candidateId).localeCompare(String(b.candidateId)));
  const share = (counts.get(pick) ?? 0) / resamples;
  // One burst per candidate shows no spread at all: every resample is the same, which proves nothing.
  const sizes = blocks.flatMap((list) => (list ? [list.length] : []));
  const fewestBlocks = sizes.length > 0 ? Math.min(...sizes) : undefined;
  const judged = fewestBlocks === undefined || fewestBlocks >= 2;
  const sorted = [...factors].sort((a, b) => a - b);
  return {
    resamples,
    share,
    stable: judged && share >= STABLE_SHARE,
    outcomes,
    speedRange: [sorted[0]!, sorted[sorted.length - 1]!],
    ...(fewestBlocks !== undefined && { fewestBlocks }),
  };
}

/**
 * The machine's speed at each single-hash round, against the run as a whole: per round, the
 * median over candidates of (its time this round / its median time). Every round runs every
 * candidate once, so a round the machine was busier in is slower for all of them. Median 1.
 */
export function speedFactors(roundTimes: ReadonlyArray<readonly number[]>): number[] {
  if (roundTimes.length === 0) return [1];
  const rounds = Math.min(...roundTimes.map((times) => times.length));
  const medians = roundTimes.map((times) => median(times));
  const factors = Array.from({ length: rounds }, (_, r) => median(roundTimes.map((times, c) => times[r]! / medians[c]!)));
  const mid = median(factors);
  return factors.map((f) => f / mid);
}

/** The picks other than `candidateId` made in at least 1% of resamples: the candidates it is tied with. */
export function tiedOutcomes(stability: RecommendationStability, candidateId: string | null): RecommendationStability['outcomes'] {
  return stability.outcomes.filter((o) => o.candidateId !== candidateId && o.share >= 0.01);
}
