import type { OutboxDeliveryStore } from '../../storage/outbox-delivery-store.js';
import type { EventSink } from './event-sink.js';
import type { EventDeliverySettings } from './settings.js';

/** Where the delivery's lines go: never an event's data, a URL or a secret; ids, names, counts and safe error text. */
export interface EventDeliveryLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** What moving an account's events from its outbox to the sinks needs (deliver-account-events.ts). */
export interface EventDeliveryDependencies {
  outbox: Pick<OutboxDeliveryStore, 'claim' | 'pop' | 'deleteIfEmpty' | 'recordAttempt' | 'release' | 'countDelivered' | 'countFailure' | 'deadLetter'>;
  /** Every destination, each under its own name; an event leaves the outbox once all have it (or dead-lettered it). */
  sinks: readonly EventSink[];
  settings: Pick<EventDeliverySettings, 'leaseMs' | 'maxAttempts' | 'retryBaseMs' | 'retryMaxMs' | 'deadLetterDays'>;
  /** The retry's jitter: a number in [0, 1). */
  random: () => number;
  log: EventDeliveryLog;
  now: () => Date;
}

/** What a sweep of every pending outbox needs (sweep-pending-events.ts): the delivery, and the Scan. */
export interface EventSweepDependencies extends EventDeliveryDependencies {
  pending: Pick<OutboxDeliveryStore, 'scanPending'>;
}

/** What the failure report reads (event-delivery-status.ts). */
export interface EventDeliveryStatusDependencies {
  status: Pick<OutboxDeliveryStore, 'sinkStatus' | 'scanPending'>;
  /** The sinks' names as configured (`webhook:<name>`, `eventbridge:<bus>`). */
  sinkNames: readonly string[];
}
