import { describe, expect, it } from 'vitest';
import { candidateId } from '../packages/server/src/cli/bench/grid.js';
import { compareStrength, recommend, type RecommendationInput } from '../packages/server/src/cli/bench/recommend.js';
import { summarize } from '../packages/server/src/cli/bench/statistics.js';
import type { BenchBackend } from '../packages/server/src/cli/bench/types.js';
import { meetsOwaspFloor } from '../packages/passlane/src/policy.js';

/** A measured candidate with a fixed burst p95 and memory need. */
function measured(backend: BenchBackend, memoryKiB: number, passes: number, burstP95: number, memoryNeedMiB = 100, lanes = 1) {
  const c = { backend, memoryKiB, passes, lanes };
  return {
    ...c,
    id: candidateId(c),
    single: { wallMs: summarize([burstP95 / 10]), cpuMs: summarize([burstP95 / 10]) },
    burst: { size: 10, repeats: 1, wallMs: summarize([burstP95 / 2, burstP95]), cpuMsPerHash: 1, peakRssMiB: 0 },
    memoryNeedMiB,
  };
}

const base = { backend: 'native' as const, budgetMs: 300, concurrency: 10, memoryBudgetMiB: 512 };

describe('recommend', () => {
  it('orders strength by m*t, then m', () => {
    const s = (memoryKiB: number, passes: number) => ({ memoryKiB, passes, lanes: 1 });
    expect(compareStrength(s(47104, 2), s(19456, 3))).toBeGreaterThan(0);
    expect(compareStrength(s(19456, 2), s(38912, 1))).toBeLessThan(0); // equal m*t: more memory wins
    expect(compareStrength(s(19456, 2), s(19456, 2))).toBe(0);
  });

  it('picks the strongest candidate that fits and explains every rejection', () => {
    const input: RecommendationInput = {
      ...base,
      candidates: [
        measured('native', 19456, 2, 120),
        measured('native', 47104, 1, 150),
        measured('native', 47104, 2, 280),
        measured('native', 65536, 3, 450), // too slow
        measured('native', 131072, 2, 250, 900), // too much memory
        measured('native', 12288, 1, 20), // below the floor
        measured('wasm', 262144, 4, 10), // other backend: ignored
      ],
    };
    const r = recommend(input);
    expect(r).toMatchObject({ backend: 'native', fits: true, params: { memoryKiB: 47104, passes: 2, lanes: 1 }, p95Ms: 280 });
    expect(r.warning).toBeUndefined();
    const reasons = Object.fromEntries(r.rejected.map((x) => [x.candidateId, x.reasons.join('; ')]));
    expect(reasons['native m=65536 t=3 p=1']).toMatch(/p95 450 ms > 300 ms at 10 in flight/);
    expect(reasons['native m=131072 t=2 p=1']).toMatch(/needs ~900 MiB > 512 MiB/);
    expect(reasons['native m=12288 t=1 p=1']).toMatch(/below the OWASP floor/);
    expect(Object.keys(reasons)).not.toContain('wasm m=262144 t=4 p=1');
    expect(r.reasoning.join('\n')).toMatch(/=> native m=47104 t=2 p=1/);
  });

  it('among equal strength, prefers the faster (e.g. another lane count)', () => {
    const r = recommend({ ...base, candidates: [measured('native', 19456, 2, 200, 100, 1), measured('native', 19456, 2, 90, 100, 2)] });
    expect(r.params).toEqual({ memoryKiB: 19456, passes: 2, lanes: 2 });
  });

  it('never recommends below the floor, however fast', () => {
    const r = recommend({ ...base, candidates: [measured('native', 8192, 1, 5), measured('native', 9216, 4, 250)] });
    expect(r.fits).toBe(true);
    expect(meetsOwaspFloor(r.params)).toBe(true);
    expect(r.params).toEqual({ memoryKiB: 9216, passes: 4, lanes: 1 });
  });

  it('nothing fits: the OWASP floor configuration with a warning, never weaker', () => {
    const r = recommend({ ...base, candidates: [measured('native', 19456, 2, 900), measured('native', 4096, 1, 10)] });
    expect(r.fits).toBe(false);
    expect(r.params).toEqual({ memoryKiB: 19456, passes: 2, lanes: 1 });
    expect(r.warning).toMatch(/no measured candidate fits/);
    expect(r.rejected).toHaveLength(2);
    expect(recommend({ ...base, candidates: [] })).toMatchObject({ fits: false, params: { memoryKiB: 19456, passes: 2 } });
  });

  it('at concurrency 1 uses single hashes; a burst of another size does not count', () => {
    const c = measured('native', 19456, 2, 100); // single p95 = 10, burst size 10
    expect(recommend({ ...base, concurrency: 1, candidates: [c] })).toMatchObject({ fits: true, p95Ms: 10 });
    const r = recommend({ ...base, concurrency: 4, candidates: [c] });
    expect(r.fits).toBe(false);
    expect(r.rejected[0]!.reasons).toEqual(['not measured at 4 in flight']);
  });
});
