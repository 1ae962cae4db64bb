import type { EventDeliverySettings } from './settings.js';

/**
 * How long after its `attempts`-th failure an event waits: the base doubled per failure, capped,
 * and then a random point in its upper half ("equal jitter"), so accounts that failed together
 * at one receiver's outage do not all come back at the same moment, yet each waits at least half.
 */
export function retryDelayMs(attempts: number, settings: Pick<EventDeliverySettings, 'retryBaseMs' | 'retryMaxMs'>, random: () => number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  const delay = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** exponent);
  return Math.round(delay / 2 + (delay / 2) * random());
}
