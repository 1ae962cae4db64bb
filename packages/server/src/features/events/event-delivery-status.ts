import type { SinkStatus } from '../../storage/outbox-delivery-store.js';
import type { EventDeliveryStatusDependencies } from './dependencies.js';

export interface EventDeliveryStatus {
  /** Per sink: events delivered, failed attempts, events dead-lettered, the last error and when. */
  sinks: SinkStatus[];
  /** Accounts whose outbox still holds events (a Scan of the table: what it costs is in the README). */
  pendingOutboxes: number;
}

/** How delivery is going (`passlane events status`, `passlane inventory`): the failures made visible. */
export async function eventDeliveryStatus(deps: EventDeliveryStatusDependencies): Promise<EventDeliveryStatus> {
  const sinks = await deps.status.sinkStatus(deps.sinkNames);
  let pendingOutboxes = 0;
  let cursor: string | undefined;
  do {
    const page = await deps.status.scanPending(cursor === undefined ? {} : { cursor });
    pendingOutboxes += page.accountIds.length;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return { sinks, pendingOutboxes };
}
