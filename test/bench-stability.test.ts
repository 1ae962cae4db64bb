/**
 * Whether a bench recommendation survives its own noise (packages/server/src/cli/bench/recommendation-stability.ts):
 * the recommendation rerun on resampled bursts and machine speeds, reported as stable, or as a
 * WARNING naming the candidates it is tied with. Fixed samples, no timing.
 */
import { describe, expect, it } from 'vitest';
import { candidateId } from '../packages/server/src/cli/bench/grid.js';
import { recommend, type RecommendationInput } from '../packages/server/src/cli/bench/recommend.js';
import { recommendationStability, speedFactors, type StabilityInput } from '../packages/server/src/cli/bench/recommendation-stability.js';
import { recommendationLines } from '../packages/server/src/cli/bench/report-text.js';
import { combineRemoteResults } from '../packages/server/src/cli/bench/remote/combine.js';
import { DEFAULT_LAMBDA_PRICES } from '../packages/server/src/cli/bench/remote/lambda-pricing.js';
import { bootstrapP95Interval, summarize } from '../packages/server/src/cli/bench/statistics.js';
import type { BenchResult, Recommendation } from '../packages/server/src/cli/bench/types.js';

/** Ten latencies of one burst of 10, evenly from `from` to `to` ms. */
const burstOf = (from: number, to: number) => Array.from({ length: 10 }, (_, i) => from + ((to - from) * i) / 9);

/** A native candidate measured with these bursts (p = 1). */
function measured(memoryKiB: number, passes: number, bursts: number[][]) {
  const c = { backend: 'native' as const, memoryKiB, passes, lanes: 1 };
  const all = bursts.flat();
  return {
    ...c,
    id: candidateId(c),
    single: { wallMs: summarize([all[0]! / 10]), cpuMs: summarize([all[0]! / 10]) },
    burst: { size: 10, repeats: bursts.length, wallMs: summarize(all), cpuMsPerHash: 1, peakRssMiB: 0 },
    memoryNeedMiB: 100,
    bursts,
  };
}

function input(candidates: Array<ReturnType<typeof measured>>, speed: number[] = [1]): StabilityInput {
  return {
    backend: 'native',
    budgetMs: 300,
    concurrency: 10,
    memoryBudgetMiB: 1024,
    candidates,
    blocks: new Map(candidates.map((c) => [c.id, c.bursts])),
    speedFactors: speed,
    resamples: 2000,
    seed: 1,
  };
}

const STRONG = 'native m=47104 t=3 p=1';
const WEAK = 'native m=19456 t=3 p=1';

describe('recommendation stability', () => {
  it('a candidate whose bursts fall either side of the budget: not stable, tied with the other pick', () => {
    // One burst of the stronger candidate fits (p95 280 ms), the other does not (340 ms): the
    // measured p95 (pooled) rejects it, a quarter of the resamples (the first burst twice) keep it.
    const run = input([measured(47104, 3, [burstOf(100, 280), burstOf(150, 340)]), measured(19456, 3, [burstOf(50, 150), burstOf(60, 160)])]);
    expect(recommend(run).candidateId).toBe(WEAK);
    const stability = recommendationStability(run);
    expect(stability.stable).toBe(false);
    expect(stability.share).toBeGreaterThan(0.6);
    expect(stability.share).toBeLessThan(0.9);
    expect(stability.outcomes.map((o) => o.candidateId)).toEqual([WEAK, STRONG]);
    expect(recommendationStability(run)).toEqual(stability); // a fixed seed: the same answer
  });

  it('bursts well clear of the budget on a steady machine: the same pick in every resample', () => {
    const run = input([measured(47104, 3, [burstOf(100, 200), burstOf(110, 220)]), measured(19456, 3, [burstOf(50, 150), burstOf(60, 160)])], [0.97, 1, 1.02]);
    expect(recommendationStability(run)).toMatchObject({ stable: true, share: 1, outcomes: [{ candidateId: STRONG, share: 1 }] });
  });

  it('a pick 5% under the budget: stable on a steady machine, not when the rounds ran up to 30% slower', () => {
    const candidates = [measured(47104, 3, [burstOf(100, 285), burstOf(100, 285)]), measured(19456, 3, [burstOf(50, 150), burstOf(50, 150)])];
    expect(recommendationStability(input(candidates, [1, 1, 1]))).toMatchObject({ stable: true, share: 1 });
    const busy = recommendationStability(input(candidates, [0.8, 0.9, 1, 1.1, 1.3]));
    expect(busy.stable).toBe(false);
    expect(busy.outcomes.map((o) => o.candidateId)).toContain(WEAK);
    expect(busy.speedRange).toEqual([0.8, 1.3]);
  });

  it('one burst per candidate shows no spread: not called stable', () => {
    const stability = recommendationStability(input([measured(47104, 3, [burstOf(100, 200)]), measured(19456, 3, [burstOf(50, 150)])]));
    expect(stability).toMatchObject({ stable: false, share: 1, fewestBlocks: 1 });
  });

  it("the machine's speed per round: each round's median ratio to the candidates' medians", () => {
    // Round 2 ran everything twice as slow.
    expect(speedFactors([[10, 20, 10], [30, 60, 30], [5, 10, 5]])).toEqual([1, 2, 1]);
    expect(speedFactors([])).toEqual([1]);
  });
});

describe('the p95 interval over bursts', () => {
  it('resamples whole bursts, so the spread from one burst to the next shows', () => {
    const slow = Array.from({ length: 10 }, (_, i) => 11 + i);
    const fast = Array.from({ length: 10 }, (_, i) => 1 + i);
    // Both bursts twice (p95 10 and 20), or one of each (19): the interval spans the two bursts.
    expect(bootstrapP95Interval([fast, slow], { seed: 3 })).toEqual([10, 20]);
    // Single latencies resampled from the pooled 20 stay far from the fast burst's 10.
    expect(bootstrapP95Interval(fast.concat(slow).map((x) => [x]), { seed: 3 })[0]).toBeGreaterThan(13);
    // Times the machine's speed.
    expect(bootstrapP95Interval([fast], { seed: 3, factors: [0.5, 1, 2] })).toEqual([5, 20]);
  });
});

describe('what the reports say', () => {
  const unstable = (): Recommendation => {
    const run = input([measured(47104, 3, [burstOf(100, 280), burstOf(150, 340)]), measured(19456, 3, [burstOf(50, 150), burstOf(60, 160)])]);
    return { ...recommend(run), stability: recommendationStability(run) };
  };

  it('the terminal and Markdown report warn and name the tied candidates', () => {
    const text = recommendationLines({ recommendations: [unstable()] } as BenchResult).join('\n');
    expect(text).toMatch(/WARNING \(native\): the recommendation is not stable: native m=19456 t=3 p=1 comes out in only \d+% of 2000 bootstrap resamples/);
    expect(text).toMatch(/statistically tied: native m=47104 t=3 p=1 \(\d+%\)/);
    const steady = input([measured(47104, 3, [burstOf(100, 200), burstOf(110, 220)])]);
    const stable = recommendationLines({ recommendations: [{ ...recommend(steady), stability: recommendationStability(steady) }] } as BenchResult);
    expect(stable.join('\n')).toMatch(/stable within this run: native m=47104 t=3 p=1 comes out in 100% of 2000/);
  });

  it("the recommendation's reasoning shows the p95 interval its budget is judged by", () => {
    const c = measured(47104, 3, [burstOf(100, 280), burstOf(150, 340)]);
    const withCi = { ...c, burst: { ...c.burst, p95Ci95: [280, 340] as [number, number] } };
    const r = recommend({ ...input([withCi]), budgetMs: 400 } as RecommendationInput);
    expect(r.reasoning.join('\n')).toMatch(/=> native m=47104 t=3 p=1: p95 \d+ ms at 10 in flight \(95% interval 280-340 ms\)/);
  });

  it('--remote warns when the pick it settles on is not stable', () => {
    const rec = unstable();
    const result = {
      candidates: [measured(19456, 3, [burstOf(50, 150)])],
      recommendations: [rec],
    } as unknown as BenchResult;
    const summary = combineRemoteResults([{ functionName: 'f', architecture: 'arm64', memorySizeMB: 1024, result }], DEFAULT_LAMBDA_PRICES);
    expect(summary.rows[0]).toMatchObject({ stable: false });
    expect(summary.reasoning.join('\n')).toMatch(/WARNING: that pick is not stable at 1024 MB/);
  });
});
