/**
 * The in-process deliverer of the long-lived hosts (`npm start`, Bun, Deno, a container's
 * serveOnNode): started with the server when webhooks are configured, it delivers an account's
 * events right after the write that appended them (the outbox's `afterAppend`) and sweeps every
 * pending outbox at start and every PASSLANE_EVENT_SWEEP_S (features/events/README.md, "Hosts").
 */
import type { EventDeliveryLog } from '../features/events/dependencies.js';
import { startBackgroundDelivery } from '../features/events/background-delivery.js';
import type { EventDeliverySettings } from '../features/events/settings.js';
import type { StorageConfig } from '../storage/settings.js';
import { buildEventDelivery } from '../wiring/build-event-delivery.js';
import type { Platform } from '../wiring/platform.js';

export interface HostEventDelivery {
  /** For the outbox's `afterAppend`: the account's events go out now, not at the next sweep. */
  afterAppend(accountId: string): void;
  /** Stops sweeping and waits for the deliveries under way (the server's stop). */
  stop(): Promise<void>;
}

/**
 * Undefined when no webhook is configured (nothing to deliver here). PASSLANE_EVENT_BUS is refused
 * (a ConfigError naming it): EventBridge is the `events` function's, on AWS.
 */
export function startHostEventDelivery(
  settings: EventDeliverySettings | undefined,
  storage: StorageConfig,
  platform: Pick<Platform, 'dynamoDb' | 'warn'>,
  log?: EventDeliveryLog,
): HostEventDelivery | undefined {
  if (settings === undefined) return undefined;
  const deps = buildEventDelivery(settings, storage, platform, log === undefined ? {} : { log });
  if (deps.sinks.length === 0) return undefined;
  const delivery = startBackgroundDelivery(deps, { sweepIntervalMs: settings.sweepIntervalMs });
  return { afterAppend: (accountId) => delivery.deliverSoon(accountId), stop: () => delivery.stop() };
}
