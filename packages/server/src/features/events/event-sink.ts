import type { AccountEvent } from '../../events/account-event.js';

/**
 * One place events go: a webhook endpoint, an EventBridge bus. The delivery
 * (deliver-account-events.ts) hands each sink an account's events one at a time, in order, and
 * moves on only when `deliver` resolves; it retries what throws.
 */
export interface EventSink {
  /** Stable and unique among the sinks: delivery state and failure counts are kept under it. */
  readonly name: string;
  /** Resolves once the destination has the event; throws EventDeliveryError when it does not. */
  deliver(event: AccountEvent): Promise<void>;
}

/** A destination did not take an event; `detail` is safe to store and show (no secrets, no body). */
export class EventDeliveryError extends Error {
  readonly code = 'ERR_EVENT_DELIVERY';
  constructor(
    readonly sink: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`event delivery to ${sink} failed: ${detail}`, options);
    this.name = 'EventDeliveryError';
  }
}
