/**
 * DynamoDB stream events as Lambda hands them to the events function: keys only (the table's
 * stream is KEYS_ONLY), one record per outbox write, sequence numbers rising in write order.
 */
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

export const STREAM_ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/passlane-dev-users/stream/2026-01-01T00:00:00.000';

let sequence = 100_000_000_000_000_000_000n;

/** A record of a write to `key`; INSERT by default. */
export function streamRecord(key: string, eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT'): DynamoDBRecord {
  sequence += 100n;
  return {
    eventID: `${sequence}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: { ApproximateCreationDateTime: Math.floor(Date.now() / 1000), Keys: { pk: { S: key } }, SequenceNumber: `${sequence}`, SizeBytes: 60, StreamViewType: 'KEYS_ONLY' },
    eventSourceARN: STREAM_ARN,
  };
}

/** A batch of writes to these accounts' outboxes, in this order (`accountId` or `[accountId, eventName]`). */
export function outboxStreamEvent(writes: ReadonlyArray<string | readonly [string, 'INSERT' | 'MODIFY' | 'REMOVE']>): DynamoDBStreamEvent {
  return { Records: writes.map((write) => (typeof write === 'string' ? streamRecord(`outbox#${write}`) : streamRecord(`outbox#${write[0]}`, write[1]))) };
}
