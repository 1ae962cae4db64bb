import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StorageUnavailableError } from './errors.js';

const BATCH_ATTEMPTS = 3;

/**
 * Items by pk in one strongly consistent BatchGetItem (keys DynamoDB leaves unprocessed, under
 * throttling, are asked again). Missing items are absent from the map.
 */
export async function batchGetByKey(
  client: DynamoDBClient,
  tableName: string,
  keys: readonly string[],
  operation: string,
): Promise<Map<string, Record<string, AttributeValue>>> {
  const items = new Map<string, Record<string, AttributeValue>>();
  let pending = [...new Set(keys)].map((key) => ({ pk: { S: key } }));
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > BATCH_ATTEMPTS) throw new StorageUnavailableError(operation, new Error('keys left unprocessed'));
    let result;
    try {
      result = await client.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
    } catch (error) {
      throw new StorageUnavailableError(operation, error);
    }
    for (const item of result.Responses?.[tableName] ?? []) {
      const pk = item.pk?.S;
      if (pk !== undefined) items.set(pk, item);
    }
    pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof pending;
  }
  return items;
}
