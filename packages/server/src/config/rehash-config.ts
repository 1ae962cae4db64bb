import type { RehashConfig } from '../features/rehash/settings.js';
import { wholeNumber, type Env } from './env.js';

export function readRehashConfig(env: Env): RehashConfig {
  const writesPerSecond = wholeNumber(env, 'PASSLANE_REHASH_WRITES_PER_SECOND', { min: 1, max: 100_000 });
  return writesPerSecond === undefined ? {} : { writesPerSecond };
}
