/** One webhook endpoint (PASSLANE_WEBHOOKS). */
export interface WebhookSettings {
  /** Lower-case letters, digits and `-`; the sink is `webhook:<name>` in counts and dead letters. */
  name: string;
  /** https, or http to a loopback host (a receiver on this machine). */
  url: string;
  /**
   * Standard Webhooks secrets (`whsec_` and base64 of 24 to 64 bytes), the current one first:
   * every request is signed with each, so a receiver that knows any of them verifies it (rotation).
   */
  secrets: string[];
}

/** How events leave the outbox (features/events/README.md); src/config/event-delivery-config.ts reads it. */
export interface EventDeliverySettings {
  webhooks: WebhookSettings[];
  /** The EventBridge bus (a name or an ARN); the `events` function publishes there, on AWS only. */
  eventBus?: string;
  /** EventBridge's `source` of every entry. */
  eventSource: string;
  /** How long a deliverer holds an account's outbox before another may take it over (a crash's wait). */
  leaseMs: number;
  /** Attempts at one event per sink before it is dead-lettered for that sink. */
  maxAttempts: number;
  /** The first retry's delay; each next one doubles, up to `retryMaxMs`, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long a webhook may take to answer. */
  webhookTimeoutMs: number;
  /** How often the long-lived hosts look for pending outboxes (a Scan: see the README for its cost). */
  sweepIntervalMs: number;
  /** How long a dead letter is kept (the table's TTL removes it). */
  deadLetterDays: number;
}

export const DEFAULT_EVENT_SOURCE = 'passlane';

export const DEFAULT_EVENT_DELIVERY: Omit<EventDeliverySettings, 'webhooks'> = {
  eventSource: DEFAULT_EVENT_SOURCE,
  // Longer than every sink's timeout together, so a live deliverer is not taken over mid-event.
  leaseMs: 60_000,
  // 10 s doubling to an hour: the twelfth attempt comes about three and a half hours after the first.
  maxAttempts: 12,
  retryBaseMs: 10_000,
  retryMaxMs: 3_600_000,
  webhookTimeoutMs: 10_000,
  sweepIntervalMs: 60_000,
  deadLetterDays: 14,
};
