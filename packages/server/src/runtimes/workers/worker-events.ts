/**
 * The Worker's delivery of account events (features/events/README.md, "How each host gets its
 * events"): a cron trigger (wrangler.toml) runs `scheduled`, which sweeps every pending outbox
 * to the webhooks of PASSLANE_WEBHOOKS; without webhooks it does nothing. There is no long-lived
 * process to deliver right after a write: a write's events wait for the next minute's sweep.
 */
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import { sweepPendingEvents } from '../../features/events/sweep-pending-events.js';
import { buildEventDelivery } from '../../wiring/build-event-delivery.js';
import { edgePlatform } from './edge-platform.js';
import { log } from './edge-log.js';
import { readWorkerConfig, stringBindings, type WorkerEnv } from './worker-env.js';

export async function sweepEventsOnSchedule(env: WorkerEnv): Promise<void> {
  const settings = readEventDeliveryConfig(stringBindings(env));
  if (settings === undefined || settings.webhooks.length === 0) return;
  const deps = buildEventDelivery(settings, readWorkerConfig(env).storage, edgePlatform, {
    log: { info: (message, fields) => log('INFO', message, fields), warn: (message, fields) => log('WARN', message, fields) },
  });
  const result = await sweepPendingEvents(deps);
  if (result.accounts > 0) log('INFO', 'events swept', { accounts: result.accounts, ...result.outcomes, errors: result.errors });
}
