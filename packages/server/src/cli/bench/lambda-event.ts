/**
 * The bench function's event: `{ grid?, quick?, budgetMs?, concurrency?, memoryBudgetMiB? }` (and
 * a few bounds), turned into validated settings. Defaults suit Lambda: one request per instance
 * (concurrency 1), the function's memory size as the memory budget, and a time bound below the
 * invocation's remaining time.
 */
import { defaultSettings, validateSettings } from './grid.js';
import type { BenchSettings, GridSpec } from './types.js';

export interface BenchEvent {
  grid?: Partial<GridSpec>;
  quick?: boolean;
  budgetMs?: number;
  concurrency?: number;
  memoryBudgetMiB?: number;
  rounds?: number;
  maxSeconds?: number;
  clients?: number[];
}

/** Seconds kept back from the invocation timeout to serialise and return the result. */
export const LAMBDA_RETURN_MARGIN_SECONDS = 10;

export class BenchEventError extends Error {
  override name = 'BenchEventError';
}

const KNOWN = new Set(['grid', 'quick', 'budgetMs', 'concurrency', 'memoryBudgetMiB', 'rounds', 'maxSeconds', 'clients']);

function numberList(name: string, value: unknown): number[] {
  if (!Array.isArray(value) || value.some((x) => typeof x !== 'number')) throw new BenchEventError(`${name} must be an array of numbers`);
  return value as number[];
}

function optionalNumber(event: Record<string, unknown>, key: string): number | undefined {
  const value = event[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new BenchEventError(`${key} must be a number`);
  return value;
}

export function settingsFromEvent(
  input: unknown,
  context: { memorySizeMB?: number; remainingSeconds?: number } = {},
): BenchSettings {
  const event = (input ?? {}) as Record<string, unknown>;
  if (typeof event !== 'object' || Array.isArray(event)) throw new BenchEventError('the event must be a JSON object');
  for (const key of Object.keys(event)) if (!KNOWN.has(key)) throw new BenchEventError(`unknown event field ${key}`);
  if (event.quick !== undefined && typeof event.quick !== 'boolean') throw new BenchEventError('quick must be a boolean');

  const settings = defaultSettings(event.quick === true);
  settings.concurrency = 1;
  if (context.memorySizeMB !== undefined) settings.memoryBudgetMiB = context.memorySizeMB;
  if (event.grid !== undefined) {
    const grid = event.grid as Record<string, unknown>;
    if (typeof grid !== 'object' || grid === null) throw new BenchEventError('grid must be an object');
    if (grid.backends !== undefined) {
      if (!Array.isArray(grid.backends) || grid.backends.some((b) => b !== 'native' && b !== 'wasm')) {
        throw new BenchEventError('grid.backends must be an array of "native" and "wasm"');
      }
      settings.grid.backends = grid.backends as GridSpec['backends'];
    }
    for (const key of ['memoryKiB', 'passes', 'lanes'] as const) {
      if (grid[key] !== undefined) settings.grid[key] = numberList(`grid.${key}`, grid[key]);
    }
  }
  settings.budgetMs = optionalNumber(event, 'budgetMs') ?? settings.budgetMs;
  settings.concurrency = optionalNumber(event, 'concurrency') ?? settings.concurrency;
  settings.memoryBudgetMiB = optionalNumber(event, 'memoryBudgetMiB') ?? settings.memoryBudgetMiB;
  settings.rounds = optionalNumber(event, 'rounds') ?? settings.rounds;
  settings.maxSeconds = optionalNumber(event, 'maxSeconds') ?? settings.maxSeconds;
  if (event.clients !== undefined) settings.clients = numberList('clients', event.clients);
  if (context.remainingSeconds !== undefined) {
    const available = context.remainingSeconds - LAMBDA_RETURN_MARGIN_SECONDS;
    if (available < 1) throw new BenchEventError(`only ${context.remainingSeconds.toFixed(0)} s left in the invocation: raise the function timeout`);
    settings.maxSeconds = Math.min(settings.maxSeconds, available);
  }
  try {
    return validateSettings(settings);
  } catch (error) {
    throw new BenchEventError(error instanceof Error ? error.message : String(error));
  }
}
