/**
 * Picks the strongest argon2id parameters that fit a latency budget (p95, at a stated number of
 * logins in flight) and a memory budget, from measurements. Pure: runs on fixed inputs in tests.
 *
 * Strength is ordered by m*t (memory-time product: what an attacker pays per guess), then by m.
 * Nothing below OWASP's table is ever recommended; when nothing fits, the answer is the OWASP
 * configuration passlane uses by default, with a warning, never something weaker.
 */
import { DEFAULT_ARGON2_POLICY, meetsOwaspFloor } from 'passlane/common';
import type { Argon2Params, BenchBackend, CandidateResult, Recommendation, Rejection } from './types.js';

export interface RecommendationInput {
  backend: BenchBackend;
  candidates: ReadonlyArray<Pick<CandidateResult, 'id' | 'backend' | 'memoryKiB' | 'passes' | 'lanes' | 'single' | 'burst' | 'memoryNeedMiB'>>;
  /** p95 budget, ms */
  budgetMs: number;
  /** Logins in flight at peak. */
  concurrency: number;
  memoryBudgetMiB: number;
}

export const OWASP_FLOOR_CONFIGURATION: Readonly<Argon2Params> = Object.freeze({
  memoryKiB: DEFAULT_ARGON2_POLICY.memoryKiB,
  passes: DEFAULT_ARGON2_POLICY.passes,
  lanes: DEFAULT_ARGON2_POLICY.lanes,
});

/** Positive when a is stronger than b. */
export function compareStrength(a: Argon2Params, b: Argon2Params): number {
  return a.memoryKiB * a.passes - b.memoryKiB * b.passes || a.memoryKiB - b.memoryKiB;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** The p95 at `concurrency` in flight: the burst of that size, or single hashes when it is 1. */
export function p95AtConcurrency(candidate: RecommendationInput['candidates'][number], concurrency: number): number | undefined {
  if (candidate.burst && candidate.burst.size === concurrency) return candidate.burst.wallMs.p95;
  if (concurrency === 1 && candidate.single) return candidate.single.wallMs.p95;
  return undefined;
}

/** `95% interval 200-310 ms` when the burst's p95 has a bootstrap interval (runBench's results do). */
function p95Interval(candidate: RecommendationInput['candidates'][number], concurrency: number): string | undefined {
  const ci = candidate.burst && candidate.burst.size === concurrency ? candidate.burst.p95Ci95 : undefined;
  return ci && `95% interval ${fmt(ci[0])}-${fmt(ci[1])} ms`;
}

export function recommend(input: RecommendationInput): Recommendation {
  const { backend, budgetMs, concurrency, memoryBudgetMiB } = input;
  const rejected: Rejection[] = [];
  const fitting: Array<{ c: RecommendationInput['candidates'][number]; p95: number }> = [];

  for (const c of input.candidates) {
    if (c.backend !== backend) continue;
    const reasons: string[] = [];
    if (!meetsOwaspFloor(c)) reasons.push('below the OWASP floor');
    const p95 = p95AtConcurrency(c, concurrency);
    if (p95 === undefined) reasons.push(`not measured at ${concurrency} in flight`);
    else if (p95 > budgetMs) {
      const ci = p95Interval(c, concurrency);
      reasons.push(`p95 ${fmt(p95)} ms > ${budgetMs} ms at ${concurrency} in flight${ci ? ` (${ci})` : ''}`);
    }
    if (c.memoryNeedMiB > memoryBudgetMiB) reasons.push(`needs ~${Math.ceil(c.memoryNeedMiB)} MiB > ${memoryBudgetMiB} MiB`);
    if (reasons.length > 0) rejected.push({ candidateId: c.id, reasons });
    else fitting.push({ c, p95: p95! });
  }

  // Strongest first; equal strength (same m and t, other lanes): the faster one.
  fitting.sort((a, b) => -compareStrength(a.c, b.c) || a.p95 - b.p95);
  const header = `${backend}: p95 <= ${budgetMs} ms with ${concurrency} login(s) in flight, memory <= ${memoryBudgetMiB} MiB; strength = m*t, then m`;
  const rejectionLines = rejected.map((r) => `  rejected ${r.candidateId}: ${r.reasons.join('; ')}`);
  const best = fitting[0];

  if (!best) {
    const { memoryKiB, passes, lanes } = OWASP_FLOOR_CONFIGURATION;
    const warning =
      `no measured candidate fits the budget; falling back to OWASP's m=${memoryKiB} t=${passes} p=${lanes} (never weaker). ` +
      'Raise the latency or memory budget, lower the peak concurrency, or add capacity.';
    return {
      backend,
      fits: false,
      params: { ...OWASP_FLOOR_CONFIGURATION },
      warning,
      rejected,
      reasoning: [header, ...rejectionLines, `  => ${warning}`],
    };
  }

  const runnersUp = fitting.slice(1, 4).map((f) => {
    const ci = p95Interval(f.c, concurrency);
    return `  also fits ${f.c.id} (p95 ${fmt(f.p95)} ms${ci ? `, ${ci}` : ''})`;
  });
  const bestCi = p95Interval(best.c, concurrency);
  const { memoryKiB, passes, lanes } = best.c;
  return {
    backend,
    fits: true,
    params: { memoryKiB, passes, lanes },
    candidateId: best.c.id,
    p95Ms: best.p95,
    ...(best.c.single && { medianMs: best.c.single.wallMs.median }),
    memoryNeedMiB: best.c.memoryNeedMiB,
    rejected,
    reasoning: [
      header,
      ...rejectionLines,
      ...runnersUp,
      `  => ${best.c.id}: p95 ${fmt(best.p95)} ms at ${concurrency} in flight${bestCi ? ` (${bestCi})` : ''}, ~${Math.ceil(best.c.memoryNeedMiB)} MiB`,
    ],
  };
}
