/**
 * Failed logins take the same time whatever is stored. Verifying costs what the stored format
 * costs: a legacy record (bcrypt 12, PBKDF2 at 600,000 rounds) or a wrapped one (that plus
 * argon2id) costs more than the one argon2id an unknown email or a current record costs, so
 * timing alone would list the imported accounts. Every failure is padded to the slowest verify
 * this container has seen recently (and at least to a configured floor); successes are not
 * padded (only the password's owner sees them). Costs and tuning: src/use-cases/LIMITS.md.
 */
export interface FailureTiming {
  /** Starts timing one verify; `done()` records its cost and returns the time to pad a failure with. */
  start(): { done(): number };
  /** Waits `ms` (nothing for 0). */
  pad(ms: number): Promise<void>;
}

export interface FailureTimingOptions {
  /** Failures never answer faster than this (PASSLANE_LOGIN_FAILURE_FLOOR_MS; 0: only what was seen). */
  floorMs?: number;
  /** How many recent verifies the slowest is taken from. */
  window?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createFailureTiming(options: FailureTimingOptions = {}): FailureTiming {
  const { floorMs = 0, window = 128, now = () => performance.now(), sleep = (ms) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  // A ring of recent verify costs: one slow legacy login raises the bar for a while, not forever.
  const recent: number[] = [];
  let next = 0;
  return {
    start() {
      const began = now();
      return {
        done() {
          const cost = now() - began;
          recent[next] = cost;
          next = (next + 1) % window;
          return Math.max(0, Math.max(floorMs, ...recent) - cost);
        },
      };
    },
    pad: (ms) => (ms > 0 ? sleep(ms) : Promise.resolve()),
  };
}
