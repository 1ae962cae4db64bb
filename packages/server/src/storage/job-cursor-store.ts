import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isConditionalCheckFailed } from './checks.js';
import { JobCursorChangedError, StorageUnavailableError } from './errors.js';
import { JOB_KEY_PREFIX } from './table.js';

export interface PutJobCursorInput {
  /** e.g. "rehash"; stored under pk "job#" + job. */
  job: string;
  cursor: string;
  /** The cursor this run last read or wrote; undefined when none was stored. */
  expected: string | undefined;
  now?: Date;
}

/** Resumable jobs' cursors on the table (layout in table.ts), each replaced conditionally. */
export class JobCursorStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** The stored cursor of a resumable job (strongly consistent), if any. */
  async get(job: string): Promise<string | undefined> {
    try {
      const result = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: JOB_KEY_PREFIX + job } }, ConsistentRead: true }),
      );
      return result.Item?.cursor?.S;
    } catch (error) {
      throw new StorageUnavailableError('getJobCursor', error);
    }
  }

  /**
   * Compare-and-swap of a job cursor: lands only if the stored cursor is still `expected` (or,
   * with `expected` undefined, none is stored), so two runs of one job never move it past each
   * other. Throws JobCursorChangedError otherwise.
   */
  async put(input: PutJobCursorInput): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: JOB_KEY_PREFIX + input.job },
            cursor: { S: input.cursor },
            updatedAt: { S: (input.now ?? new Date()).toISOString() },
          },
          // CURSOR is a DynamoDB reserved word, hence the name placeholder.
          ConditionExpression: input.expected === undefined ? 'attribute_not_exists(pk)' : '#cursor = :expected',
          ...(input.expected !== undefined && {
            ExpressionAttributeNames: { '#cursor': 'cursor' },
            ExpressionAttributeValues: { ':expected': { S: input.expected } },
          }),
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw new StorageUnavailableError('putJobCursor', error);
      // A retried attempt of this very call may have landed first; that is success.
      if ((await this.get(input.job)) === input.cursor) return;
      throw new JobCursorChangedError({ cause: error });
    }
  }

}
