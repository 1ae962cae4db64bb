/**
 * Account events from the edge hosts (features/events/README.md, "How each host gets its
 * events"), to the webhooks of PASSLANE_WEBHOOKS: right after a request whose writes appended
 * events (the entry hands `deliverAppendedEvents` to the platform's `waitUntil`), and by a sweep of
 * every pending outbox (the Worker's cron trigger, Vercel Cron's route), which catches what the
 * first missed: a retry whose backoff ran out, an isolate that went away mid-delivery. Without
 * webhooks both do nothing.
 */
import { readEventDeliveryConfig } from '../../config/event-delivery-config.js';
import type { EventSweepDependencies } from '../../features/events/dependencies.js';
import { deliverAccountEvents } from '../../features/events/deliver-account-events.js';
import { describeDeliveryError, sweepPendingEvents, type SweepResult } from '../../features/events/sweep-pending-events.js';
import { buildEventDelivery } from '../../wiring/build-event-delivery.js';
import { edgePlatform } from './edge-platform.js';
import { log } from './edge-log.js';
import { readWorkerConfig, stringBindings, type WorkerEnv } from './worker-env.js';

const deliveryLog = { info: (message: string, fields?: Record<string, unknown>) => log('INFO', message, fields), warn: (message: string, fields?: Record<string, unknown>) => log('WARN', message, fields) };

const byEnv = new WeakMap<object, EventSweepDependencies | null>();

/** The delivery for these bindings, built once per bindings object (an isolate's); null without webhooks. A bad setting throws, and is read again next time. */
function eventDelivery(env: WorkerEnv): EventSweepDependencies | null {
  let deps = byEnv.get(env);
  if (deps === undefined) {
    const settings = readEventDeliveryConfig(stringBindings(env));
    deps = settings === undefined || settings.webhooks.length === 0 ? null : buildEventDelivery(settings, readWorkerConfig(env).storage, edgePlatform, { log: deliveryLog });
    byEnv.set(env, deps);
  }
  return deps;
}

/**
 * The accounts one request appended events to, delivered one after the other. Never throws: an
 * account that fails (storage, a bad setting) is logged and left to the next sweep, its events
 * still in its outbox.
 */
export async function deliverAppendedEvents(env: WorkerEnv, accountIds: Iterable<string>): Promise<void> {
  try {
    const deps = eventDelivery(env);
    if (deps === null) return;
    for (const accountId of accountIds) {
      try {
        await deliverAccountEvents(deps, accountId);
      } catch (error) {
        log('WARN', 'event delivery stopped by an error; the next sweep resumes it', { accountId, error: describeDeliveryError(error) });
      }
    }
  } catch (error) {
    log('ERROR', 'event delivery could not start; the next sweep delivers', { error: describeDeliveryError(error) });
  }
}

/**
 * Every pending outbox (a Scan of the table), delivered; undefined without webhooks. `signal`
 * stops it between accounts (the rest waits for the next sweep).
 */
export async function sweepEdgeEvents(env: WorkerEnv, options: { signal?: AbortSignal } = {}): Promise<SweepResult | undefined> {
  const deps = eventDelivery(env);
  if (deps === null) return undefined;
  const result = await sweepPendingEvents(deps, options);
  if (result.accounts > 0) log('INFO', 'events swept', { accounts: result.accounts, ...result.outcomes, errors: result.errors });
  return result;
}
