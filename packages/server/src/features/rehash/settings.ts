/**
 * The rehash Lambda's settings (the CLI's `passlane rehash` takes its own options).
 * config/rehash-config.ts reads them from the environment.
 */
export interface RehashConfig {
  /** PASSLANE_REHASH_WRITES_PER_SECOND, 1 to 100000: the job's write rate; unset means DEFAULT_REHASH_WRITES_PER_SECOND. */
  writesPerSecond?: number;
}

/** Wraps cost one argon2 run each at the current policy, so CPU, not this, is usually the bound. */
export const DEFAULT_REHASH_WRITES_PER_SECOND = 100;
