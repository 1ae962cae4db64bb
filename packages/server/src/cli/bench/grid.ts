/** The candidate grid and the default settings for a full and a quick run. Pure. */
import { DEFAULT_SEED } from './prng.js';
import type { BenchBackend, BenchSettings, Candidate, GridSpec } from './types.js';

export const candidateId = (c: Omit<Candidate, 'id'>): string => `${c.backend} m=${c.memoryKiB} t=${c.passes} p=${c.lanes}`;

/** Every combination, skipping ones argon2 refuses (m below 8 KiB per lane). */
export function buildCandidates(grid: GridSpec): Candidate[] {
  const out: Candidate[] = [];
  for (const backend of grid.backends) {
    for (const memoryKiB of grid.memoryKiB) {
      for (const passes of grid.passes) {
        for (const lanes of grid.lanes) {
          if (memoryKiB < 8 * lanes) continue;
          const c = { backend, memoryKiB, passes, lanes };
          out.push({ ...c, id: candidateId(c) });
        }
      }
    }
  }
  return out;
}

/** OWASP rows (m=47104 t=1, m=19456 t=2 ...) plus the steps above them people actually choose. */
export const FULL_GRID: Readonly<GridSpec> = Object.freeze({
  backends: ['native', 'wasm'] as BenchBackend[],
  memoryKiB: [12288, 19456, 47104, 65536, 131072],
  passes: [1, 2, 3, 4],
  lanes: [1, 2],
});

/** About 30 s on 2 cores: two memory costs, two or three pass counts, one lane, both backends. */
export const QUICK_GRID: Readonly<GridSpec> = Object.freeze({
  backends: ['native', 'wasm'] as BenchBackend[],
  memoryKiB: [19456, 47104],
  passes: [1, 2, 3],
  lanes: [1],
});

export const SUSTAINED_CLIENTS = [1, 2, 4, 8, 16];

export function defaultSettings(quick: boolean): BenchSettings {
  const grid = quick ? QUICK_GRID : FULL_GRID;
  return {
    grid: { backends: [...grid.backends], memoryKiB: [...grid.memoryKiB], passes: [...grid.passes], lanes: [...grid.lanes] },
    warmups: quick ? 1 : 2,
    rounds: quick ? 9 : 21,
    concurrency: 10,
    burstRepeats: quick ? 2 : 5,
    clients: [...SUSTAINED_CLIENTS],
    sustainedMaxSeconds: quick ? 0.8 : 3,
    sustainedMaxHashes: quick ? 48 : 400,
    budgetMs: 300,
    memoryBudgetMiB: 1024,
    maxSeconds: quick ? 45 : 600,
    seed: DEFAULT_SEED,
    bootstrapResamples: 2000,
  };
}

/** Hard bounds, whatever the caller asks: a bench must always end. */
export const LIMITS = {
  maxRounds: 200,
  maxWarmups: 10,
  maxConcurrency: 256,
  maxBurstRepeats: 50,
  maxClients: 64,
  maxSustainedSeconds: 60,
  maxSustainedHashes: 10_000,
  maxSeconds: 3600,
  maxCandidates: 200,
  maxMemoryKiB: 4 * 1024 * 1024,
} as const;

function intIn(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max} (got ${value})`);
  return value;
}

/** Checks every field and clamps nothing silently: a bad value is an error naming the field. */
export function validateSettings(s: BenchSettings): BenchSettings {
  if (s.grid.backends.length === 0) throw new RangeError('grid.backends is empty');
  for (const b of s.grid.backends) if (b !== 'native' && b !== 'wasm') throw new RangeError(`unknown backend ${String(b)}`);
  for (const m of s.grid.memoryKiB) intIn('grid.memoryKiB', m, 8, LIMITS.maxMemoryKiB);
  for (const t of s.grid.passes) intIn('grid.passes', t, 1, 100);
  for (const p of s.grid.lanes) intIn('grid.lanes', p, 1, 16);
  const count = buildCandidates(s.grid).length;
  if (count === 0) throw new RangeError('the grid has no valid candidate');
  if (count > LIMITS.maxCandidates) throw new RangeError(`the grid has ${count} candidates; at most ${LIMITS.maxCandidates}`);
  intIn('warmups', s.warmups, 0, LIMITS.maxWarmups);
  intIn('rounds', s.rounds, 1, LIMITS.maxRounds);
  intIn('concurrency', s.concurrency, 1, LIMITS.maxConcurrency);
  intIn('burstRepeats', s.burstRepeats, 0, LIMITS.maxBurstRepeats);
  for (const c of s.clients) intIn('clients', c, 1, LIMITS.maxClients);
  intIn('sustainedMaxHashes', s.sustainedMaxHashes, 1, LIMITS.maxSustainedHashes);
  intIn('bootstrapResamples', s.bootstrapResamples, 100, 20_000);
  if (!(s.sustainedMaxSeconds > 0 && s.sustainedMaxSeconds <= LIMITS.maxSustainedSeconds)) throw new RangeError('sustainedMaxSeconds out of range');
  if (!(s.maxSeconds > 0 && s.maxSeconds <= LIMITS.maxSeconds)) throw new RangeError(`maxSeconds must be in (0, ${LIMITS.maxSeconds}]`);
  if (!(s.budgetMs > 0)) throw new RangeError('budgetMs must be positive');
  if (!(s.memoryBudgetMiB > 0)) throw new RangeError('memoryBudgetMiB must be positive');
  return s;
}

/** `19456,47104` -> [19456, 47104]; for CLI flags. */
export function parseNumberList(name: string, text: string): number[] {
  const values = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (values.length === 0) throw new RangeError(`${name} needs at least one value`);
  return values.map((part) => {
    const value = Number(part);
    if (!Number.isFinite(value)) throw new RangeError(`${name}: ${JSON.stringify(part)} is not a number`);
    return value;
  });
}
