import { median } from '../bench/statistics.js';
import { CURRENT_COST_SHAPE, PasslaneError, type PasswordHasher } from 'passlane/common';

/**
 * `passlane inventory --timing`: what verifying each shape of stored record costs, against the
 * current argon2id verify (the dummy), and the PASSLANE_LOGIN_FAILURE_PAD_FACTOR that makes a
 * fresh login container pad failures to the slowest of them (packages/server/src/features/login/login-failure-timing.ts).
 * A ratio, not milliseconds: it carries over from the operator's machine to Lambda's CPUs far
 * better. One stored record of each shape is verified with a random wrong password; nothing read
 * is printed or kept beyond the run.
 */

/** Shapes timed; the login keeps fewer (MAX_SHAPES), and a table with more says so. */
export const MAX_TIMED_SHAPES = 64;

/** One record kept per cost shape while the inventory reads, and how many accounts each has. */
export interface ShapeSamples {
  add(stored: string): void;
  /** Shape, one of its stored values, and its account count. */
  readonly shapes: ReadonlyMap<string, { stored: string; accounts: number }>;
  /** Accounts whose shape came after MAX_TIMED_SHAPES others: not timed. */
  readonly untimedAccounts: number;
}

export function collectShapeSamples(hasher: Pick<PasswordHasher, 'costShape'>): ShapeSamples {
  const shapes = new Map<string, { stored: string; accounts: number }>();
  let untimedAccounts = 0;
  return {
    add(stored) {
      const shape = hasher.costShape(stored);
      const kept = shapes.get(shape);
      if (kept) kept.accounts++;
      else if (shapes.size < MAX_TIMED_SHAPES) shapes.set(shape, { stored, accounts: 1 });
      else untimedAccounts++;
    },
    shapes,
    get untimedAccounts() {
      return untimedAccounts;
    },
  };
}

export type ShapeCost =
  | { shape: string; accounts: number; medianMs: number; ratio: number }
  /** The record could not be verified here (a retired pepper key, say): a login answers it with the dummy. */
  | { shape: string; accounts: number; error: string };

export interface VerifyCosts {
  /** The current argon2id verify (the dummy an unknown email costs), median ms. */
  currentMs: number;
  rounds: number;
  shapes: ShapeCost[];
  /** The slowest shape's median over the current verify, rounded up to a tenth; at least 1. */
  padFactor: number;
  slowest?: string;
}

export interface MeasureOptions {
  /** Verifies per shape; the median is kept. */
  rounds?: number;
  now?: () => number;
}

/**
 * Times `rounds` verifies of each shape and of the dummy with a wrong password, round by round,
 * so machine noise hits every shape alike, each round starting one further along (a verify
 * right after a slow one measured slower here), after one untimed dummy that loads the backend.
 */
export async function measureVerifyCosts(
  hasher: Pick<PasswordHasher, 'verify' | 'verifyDummy'>,
  samples: ShapeSamples,
  options: MeasureOptions = {},
): Promise<VerifyCosts> {
  const { rounds = 5, now = () => performance.now() } = options;
  const wrong = `not-the-password-${crypto.randomUUID()}`;
  await hasher.verifyDummy(wrong);
  const current: number[] = [];
  const times = new Map<string, number[]>();
  const errors = new Map<string, string>();
  // undefined: the dummy.
  const order: (string | undefined)[] = [undefined, ...samples.shapes.keys()];
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < order.length; step++) {
      const shape = order[(round + step) % order.length];
      if (shape !== undefined && errors.has(shape)) continue;
      const began = now();
      try {
        await (shape === undefined ? hasher.verifyDummy(wrong) : hasher.verify(samples.shapes.get(shape)!.stored, wrong));
      } catch (error) {
        if (!(error instanceof PasslaneError) || shape === undefined) throw error;
        errors.set(shape, error.code);
        continue;
      }
      if (shape === undefined) current.push(now() - began);
      else times.set(shape, [...(times.get(shape) ?? []), now() - began]);
    }
  }
  const currentMs = median(current);
  const shapes: ShapeCost[] = [...samples.shapes].map(([shape, { accounts }]) => {
    const error = errors.get(shape);
    if (error !== undefined) return { shape, accounts, error };
    const medianMs = median(times.get(shape)!);
    return { shape, accounts, medianMs, ratio: medianMs / currentMs };
  });
  shapes.sort((a, b) => ('ratio' in b ? b.ratio : 0) - ('ratio' in a ? a.ratio : 0));
  const slowest = shapes.find((shape) => 'ratio' in shape && shape.shape !== CURRENT_COST_SHAPE);
  const ratio = slowest && 'ratio' in slowest ? slowest.ratio : 1;
  // Rounded up: a factor a little high costs a few ms of waiting; a little low shows the slowest shape.
  return { currentMs, rounds, shapes, padFactor: Math.max(1, Math.ceil(ratio * 10 - 1e-9) / 10), ...(slowest && { slowest: slowest.shape }) };
}
