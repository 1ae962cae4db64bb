import { UpdateItemCommand, type DynamoDBClient, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { StorageUnavailableError } from './errors.js';
import type { AccountEvent } from '../events/account-event.js';
import type { EventOutbox } from './event-outbox.js';

/**
 * One UpdateItem under its condition: true when written, false when the condition failed (the
 * caller decides what a lost race means); any other failure is StorageUnavailableError, named
 * after `operation`.
 */
export async function conditionalUpdate(client: DynamoDBClient, tableName: string, operation: string, input: Omit<UpdateItemCommandInput, 'TableName'>): Promise<boolean> {
  try {
    await client.send(new UpdateItemCommand({ TableName: tableName, ...input }));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw new StorageUnavailableError(operation, error);
  }
}

/**
 * conditionalUpdate through the outbox: with `events`, the account events recorded in the same
 * write (event-outbox.ts); without, exactly conditionalUpdate's one UpdateItem.
 */
export async function conditionalUpdateWithEvents(
  outbox: EventOutbox,
  tableName: string,
  operation: string,
  input: Omit<UpdateItemCommandInput, 'TableName'>,
  events: readonly AccountEvent[],
): Promise<boolean> {
  try {
    await outbox.write({ Update: { TableName: tableName, ...input } }, events);
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw new StorageUnavailableError(operation, error);
  }
}
