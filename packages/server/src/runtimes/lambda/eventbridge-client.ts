/**
 * The events function's EventBridge: PutEvents through @aws-sdk/client-eventbridge, behind the
 * delivery's EventBusClient (features/events/eventbridge-sink.ts), so the delivery knows nothing
 * of the SDK and tests hand it a local endpoint (AWS_ENDPOINT_URL_EVENTBRIDGE, the SDK's own
 * variable) or a client of their own. Credentials and region are the SDK's defaults: the
 * function's role and AWS_REGION; the role may PutEvents on the configured bus alone.
 */
import { EventBridgeClient, PutEventsCommand, type EventBridgeClientConfig } from '@aws-sdk/client-eventbridge';
import type { EventBusClient, EventBusEntry, EventBusResult } from '../../features/events/eventbridge-sink.js';

/**
 * The SDK's `standard` retry: throttling, 5xx and network errors, with jittered backoff, up to
 * EVENTBRIDGE_MAX_ATTEMPTS attempts. A retried PutEvents that had in fact gone through publishes the event twice, which
 * at-least-once delivery allows (receivers deduplicate by the event's id, `detail.id`).
 */
export const EVENTBRIDGE_RETRY_MODE = 'standard';
export const EVENTBRIDGE_MAX_ATTEMPTS = 3;

/**
 * Per attempt. PutEvents answers in well under a second; a stuck call must end well inside the
 * outbox's lease (PASSLANE_EVENT_LEASE_S) so the delivery records the failure itself, and
 * `throwOnRequestTimeout` makes the timeout an error rather than a logged warning.
 */
export const EVENTBRIDGE_CONNECTION_TIMEOUT_MS = 1_000;
export const EVENTBRIDGE_REQUEST_TIMEOUT_MS = 3_000;

export function eventBridgeClientConfig(): EventBridgeClientConfig {
  return {
    retryMode: EVENTBRIDGE_RETRY_MODE,
    maxAttempts: EVENTBRIDGE_MAX_ATTEMPTS,
    requestHandler: { connectionTimeout: EVENTBRIDGE_CONNECTION_TIMEOUT_MS, requestTimeout: EVENTBRIDGE_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  };
}

/** PutEvents with the SDK: the entries as they are (the sink names them as the SDK does), the answer per entry in order. */
export function sdkEventBusClient(client: EventBridgeClient = new EventBridgeClient(eventBridgeClientConfig())): EventBusClient {
  return {
    async putEvents(entries: EventBusEntry[]): Promise<EventBusResult> {
      const output = await client.send(new PutEventsCommand({ Entries: entries }));
      const results = output.Entries ?? [];
      return {
        FailedEntryCount: output.FailedEntryCount ?? 0,
        Entries: results.map((entry) => ({
          ...(entry.EventId !== undefined && { EventId: entry.EventId }),
          ...(entry.ErrorCode !== undefined && { ErrorCode: entry.ErrorCode }),
          ...(entry.ErrorMessage !== undefined && { ErrorMessage: entry.ErrorMessage }),
        })),
      };
    },
  };
}
