/**
 * Answers that must not tell one case from another by their time. A step's cost differs by case
 * (a mail sent for a known address, none for an unknown one), so the answer is padded to what
 * the slow case costs. Failed logins use login-failure-timing.ts, which learns the cost per
 * stored shape; the ring below (the slowest of this container's recent answers, at least a
 * floor) pads password-reset requests and registration. Costs and tuning: packages/server/src/features/login/LIMITS.md.
 */
export interface FailureTiming {
  /**
   * Starts timing one step; `done()` records its cost and returns the time to pad the answer
   * with. `shape` says what was timed (a login's verify shape), `false` that the cost is none to
   * learn from (a question that got no answer: its timeout); the ring below ignores it.
   */
  start(): { done(shape?: string | false): number };
  /** Waits `ms` (nothing for 0). */
  pad(ms: number): Promise<void>;
}

export interface FailureTimingOptions {
  /** Answers never come faster than this (ms; 0: only what was seen). */
  floorMs?: number;
  /** How many recent costs the slowest is taken from. */
  window?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createFailureTiming(options: FailureTimingOptions = {}): FailureTiming {
  const { floorMs = 0, window = 128, now = () => performance.now(), sleep = (ms) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  // A ring of recent costs: one slow answer raises the bar for a while, not forever.
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
