import { wholeNumber, type Env } from './env.js';

export interface RehashConfig {
  /** PASSLANE_REHASH_WRITES_PER_SECOND: the Lambda job's write rate; unset means the job's default (100). */
  writesPerSecond?: number;
}

export function readRehashConfig(env: Env): RehashConfig {
  const writesPerSecond = wholeNumber(env, 'PASSLANE_REHASH_WRITES_PER_SECOND', { min: 1, max: 100_000 });
  return writesPerSecond === undefined ? {} : { writesPerSecond };
}
