import type { AccountEvent } from '../../events/account-event.js';
import { EventDeliveryError, type EventSink } from './event-sink.js';

/** One entry of a PutEvents request, named as the AWS SDK names it (so the real client passes it on as it is). */
export interface EventBusEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  /** The event as JSON. */
  Detail: string;
  Time: Date;
}

/** PutEvents' answer, one result per entry in order: an `ErrorCode` marks an entry EventBridge did not take. */
export interface EventBusResult {
  FailedEntryCount: number;
  Entries: Array<{ EventId?: string; ErrorCode?: string; ErrorMessage?: string }>;
}

/**
 * What the sink needs of EventBridge: PutEvents. The real one (@aws-sdk/client-eventbridge) is
 * the `events` function's (functions/events.ts); tests hand their own, as EventBridge cannot run here.
 */
export interface EventBusClient {
  putEvents(entries: EventBusEntry[]): Promise<EventBusResult>;
}

export function eventBridgeSinkName(bus: string): string {
  return `eventbridge:${bus}`;
}

/**
 * The bus as a sink: one entry per event, `source` (passlane by default), `detail-type` the
 * event's type, `detail` the event as JSON (rules match on `detail.accountId`, `detail.data...`).
 * An entry EventBridge refuses (FailedEntryCount) is a failure, retried like a webhook's. EventBridge
 * itself promises no order to its targets: passlane hands the bus each account's events in order,
 * one at a time, and a target that needs order sorts by `detail.time` or keeps the last id it saw.
 */
export function createEventBridgeSink(client: EventBusClient, options: { bus: string; source: string }): EventSink {
  const name = eventBridgeSinkName(options.bus);
  return {
    name,
    async deliver(event: AccountEvent): Promise<void> {
      let result: EventBusResult;
      try {
        result = await client.putEvents([{ EventBusName: options.bus, Source: options.source, DetailType: event.type, Detail: JSON.stringify(event), Time: new Date(event.time) }]);
      } catch (error) {
        // The SDK error's name only: its message can quote the request.
        throw new EventDeliveryError(name, `PutEvents failed: ${error instanceof Error ? error.name : 'unknown error'}`, { cause: error });
      }
      const entry = result.Entries[0];
      if (result.FailedEntryCount > 0 || entry === undefined || entry.ErrorCode !== undefined) {
        throw new EventDeliveryError(name, `PutEvents refused the entry: ${entry?.ErrorCode ?? 'no result'}`);
      }
    },
  };
}
