/**
 * The outbox's append as the design states it (storage/event-outbox.ts writes the same in the
 * write that makes the change): the delivery tests fill outboxes with it without a use case.
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAccountEvent, type AccountEvent, type AccountEventData, type AccountEventType } from '../../packages/server/src/events/account-event.js';

export async function appendToOutbox(client: DynamoDBClient, table: string, events: AccountEvent[], now = new Date()): Promise<void> {
  const accountId = events[0]!.accountId;
  await client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: { S: `outbox#${accountId}` } },
      UpdateExpression: 'SET #events = list_append(if_not_exists(#events, :empty), :new), pendingSince = if_not_exists(pendingSince, :now)',
      ExpressionAttributeNames: { '#events': 'events' },
      ExpressionAttributeValues: {
        ':empty': { L: [] },
        ':new': {
          L: events.map((event) => ({
            M: { id: { S: event.id }, type: { S: event.type }, time: { S: event.time }, accountId: { S: event.accountId }, data: { S: JSON.stringify(event.data) } },
          })),
        },
        ':now': { N: String(Math.floor(now.getTime() / 1000)) },
      },
    }),
  );
}

/** `count` events of one account, each a password change (their order is what the tests look at). */
export function someEvents(accountId: string, count: number): AccountEvent[] {
  return Array.from({ length: count }, () => createAccountEvent('password.changed', accountId, { by: 'owner' }, new Date()));
}

export function event<T extends AccountEventType>(type: T, accountId: string, data: AccountEventData[T]): AccountEvent<T> {
  return createAccountEvent(type, accountId, data, new Date());
}
