import { CURRENT_COST_SHAPE, type PasswordHasher } from 'passlane/common';
import type { FailureTiming } from '../../accounts/failure-timing.js';

/**
 * Failed logins take the same time whatever is stored, and nothing a client sends can shorten
 * it. A verify costs what its record's shape costs (scheme and cost parameters: bcrypt 12, PBKDF2
 * at 600,000, a wrapped record...), so each shape keeps the costs of its own last verifies, and
 * every failure waits for the slowest shape's median (at least the floor, and at least the pad
 * factor times the current argon2id verify). A success feeds only its own shape, so logins to an
 * attacker's own argon2id account, however many, leave a slow shape's median where it was: it
 * moves only when records of that shape are verified, at their real cost. Successes are not
 * padded (only the password's owner sees them). Promise, costs and what remains:
 * packages/passlane/SECURITY.md.
 */
export interface LoginFailureTimingOptions {
  /** Failures never answer faster than this (PASSLANE_LOGIN_FAILURE_FLOOR_MS). */
  floorMs?: number;
  /**
   * The slowest stored verify in current argon2id verifies (PASSLANE_LOGIN_FAILURE_PAD_FACTOR,
   * which `passlane inventory --timing` measures): failures wait at least this many times the
   * current shape's median, so a container pads right before it has verified a legacy record.
   */
  padFactor?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The old system's answer in the verify's place (lazy migration): its latency is a shape of its own. */
export const OLD_SYSTEM_SHAPE = 'old system';
/** A `done()` told no shape. */
const UNNAMED_SHAPE = 'unnamed';
/** Costs kept per shape: the median of the last 16 shrugs off a slow outlier or two. */
const COSTS_PER_SHAPE = 16;
/**
 * Shapes kept. Only stored data makes shapes (registration and migration store the current
 * one), so a table holds a handful; past the cap a new shape replaces the cheapest kept (never
 * the current one), so memory stays bounded and the slowest stay.
 */
export const MAX_SHAPES = 32;

export interface LoginFailureTiming extends FailureTiming {
  /** How many shapes this container keeps costs for (at most MAX_SHAPES). */
  shapesKept(): number;
}

interface ShapeCosts {
  costs: Float64Array;
  count: number;
  next: number;
  median: number;
}

export function createLoginFailureTiming(options: LoginFailureTimingOptions = {}): LoginFailureTiming {
  const { floorMs = 0, padFactor = 1, now = () => performance.now(), sleep = (ms) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  const shapes = new Map<string, ShapeCosts>();

  /** The shape's entry, made room for when new; undefined when every kept shape costs more. */
  function entryOf(shape: string, cost: number): ShapeCosts | undefined {
    const kept = shapes.get(shape);
    if (kept) return kept;
    if (shapes.size >= MAX_SHAPES) {
      let cheapest: [string, ShapeCosts] | undefined;
      for (const entry of shapes) if (entry[0] !== CURRENT_COST_SHAPE && (!cheapest || entry[1].median < cheapest[1].median)) cheapest = entry;
      if (!cheapest || cheapest[1].median >= cost) return undefined;
      shapes.delete(cheapest[0]);
    }
    const entry = { costs: new Float64Array(COSTS_PER_SHAPE), count: 0, next: 0, median: 0 };
    shapes.set(shape, entry);
    return entry;
  }

  function record(shape: string, cost: number): void {
    const entry = entryOf(shape, cost);
    if (!entry) return;
    entry.costs[entry.next] = cost;
    entry.next = (entry.next + 1) % COSTS_PER_SHAPE;
    entry.count = Math.min(entry.count + 1, COSTS_PER_SHAPE);
    // The upper median: with two costs, the larger.
    entry.median = entry.costs.slice(0, entry.count).sort()[entry.count >> 1]!;
  }

  /** What every failure waits for: the floor, the slowest shape, the factor times the current one. */
  function level(): number {
    let slowest = floorMs;
    for (const { median } of shapes.values()) slowest = Math.max(slowest, median);
    const current = shapes.get(CURRENT_COST_SHAPE);
    return current ? Math.max(slowest, padFactor * current.median) : slowest;
  }

  return {
    start() {
      const began = now();
      return {
        done(shape = UNNAMED_SHAPE) {
          const cost = now() - began;
          if (shape !== false) record(shape, cost);
          return Math.max(0, level() - cost);
        },
      };
    },
    pad: (ms) => (ms > 0 ? sleep(ms) : Promise.resolve()),
    shapesKept: () => shapes.size,
  };
}

/**
 * The shape of a login's verify: the old system's when it answered in the verify's place, the
 * dummy's (current) for an email with no account or a record that could not be verified, else
 * the stored record's. Called after a verify that parsed `stored`, so it does not throw.
 */
export function loginVerifyShape(
  hasher: Pick<PasswordHasher, 'costShape'>,
  stored: string | undefined,
  verdict: { migration?: unknown; unverifiable?: boolean; unavailable?: boolean },
): string | false {
  // No answer (or none asked, its breaker open): the wait was the timeout's, or none; neither is a cost to pad to.
  if (verdict.unavailable === true) return false;
  if (verdict.migration !== undefined) return OLD_SYSTEM_SHAPE;
  return stored === undefined || verdict.unverifiable ? CURRENT_COST_SHAPE : hasher.costShape(stored);
}
