/**
 * The delivery of account events (features/events) from its settings: the outbox's delivery
 * store, one sink per webhook and the EventBridge bus when a client for it is given (the `events`
 * function's; no other host has one).
 */
import { ConfigError } from '../config/config-error.js';
import type { EventDeliveryLog, EventDeliveryStatusDependencies, EventSweepDependencies } from '../features/events/dependencies.js';
import { createEventBridgeSink, eventBridgeSinkName, type EventBusClient } from '../features/events/eventbridge-sink.js';
import type { EventSink } from '../features/events/event-sink.js';
import type { EventDeliverySettings } from '../features/events/settings.js';
import { createWebhookSink, webhookSinkName } from '../features/events/webhook-sink.js';
import { OutboxDeliveryStore } from '../storage/outbox-delivery-store.js';
import type { StorageConfig } from '../storage/settings.js';
import { systemClock } from '../shared/system-clock.js';
import type { Platform } from './platform.js';

export interface EventDeliveryWiring {
  /** EventBridge's client: only the `events` function has one (PASSLANE_EVENT_BUS is refused elsewhere). */
  eventBus?: EventBusClient;
  /** Where the delivery's lines go; the platform's warnings (and no info lines) unless given. */
  log?: EventDeliveryLog;
  /** The webhooks' HTTP client (tests); the runtime's fetch otherwise. */
  fetch?: typeof fetch;
}

/** The sinks' names as configured, for the status (`webhook:<name>`, `eventbridge:<bus>`). */
export function eventSinkNames(settings: EventDeliverySettings): string[] {
  return [...settings.webhooks.map((webhook) => webhookSinkName(webhook.name)), ...(settings.eventBus === undefined ? [] : [eventBridgeSinkName(settings.eventBus)])];
}

/** Everything a deliverer and its sweeps need. */
export function buildEventDelivery(
  settings: EventDeliverySettings,
  storage: StorageConfig,
  platform: Pick<Platform, 'dynamoDb' | 'warn'>,
  wiring: EventDeliveryWiring = {},
): EventSweepDependencies & EventDeliveryStatusDependencies {
  const store = new OutboxDeliveryStore(platform.dynamoDb(storage), storage.table);
  const sinks: EventSink[] = settings.webhooks.map((webhook) =>
    createWebhookSink(webhook, { timeoutMs: settings.webhookTimeoutMs, now: systemClock, ...(wiring.fetch && { fetch: wiring.fetch }) }),
  );
  if (settings.eventBus !== undefined) {
    if (wiring.eventBus === undefined) {
      throw new ConfigError('PASSLANE_EVENT_BUS', 'is published to by the events function on AWS only; unset it on this host (webhooks are delivered everywhere)');
    }
    sinks.push(createEventBridgeSink(wiring.eventBus, { bus: settings.eventBus, source: settings.eventSource }));
  }
  return {
    outbox: store,
    pending: store,
    status: store,
    sinks,
    sinkNames: sinks.map((sink) => sink.name),
    settings,
    random: Math.random,
    log: wiring.log ?? { info: () => {}, warn: platform.warn },
    now: systemClock,
  };
}

/**
 * What the status report reads: the sinks' names are enough (no EventBridge client needed to read
 * its counts); with no settings (nothing delivered), the pending outboxes alone.
 */
export function buildEventDeliveryStatus(settings: EventDeliverySettings | undefined, storage: StorageConfig, platform: Pick<Platform, 'dynamoDb'>): EventDeliveryStatusDependencies {
  return { status: new OutboxDeliveryStore(platform.dynamoDb(storage), storage.table), sinkNames: settings === undefined ? [] : eventSinkNames(settings) };
}
