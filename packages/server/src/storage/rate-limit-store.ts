import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StorageRecordInvalidError, StorageUnavailableError } from './errors.js';
import { assertPositiveInteger } from './checks.js';
import { RATE_LIMIT_KEY_PREFIX, TTL_ATTRIBUTE } from './table.js';

export interface RateLimitInput {
  /** What is limited, e.g. "login#" + email or "ip#" + address. Never logged. */
  key: string;
  windowSeconds: number;
  /** Hits allowed per window. */
  limit: number;
  now?: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Hits in the current window, this one included. */
  count: number;
  /** 0 when allowed; otherwise whole seconds until the window ends (at least 1). */
  retryAfterSeconds: number;
}

/** Rate-limit counters on the table (layout in table.ts): one atomic write per hit, no read. */
export class RateLimitStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /**
   * Fixed-window counter: one item per key and window (windowStart = now rounded down to a
   * multiple of windowSeconds), incremented with an atomic ADD, so concurrent hits never lose
   * counts and exactly `limit` of them are allowed per window. Cheaper than a sliding window
   * (one write, no read); the price is that a burst straddling a window boundary can reach
   * 2 × limit. Old windows are never read again; TTL on expiresAt only cleans them up.
   */
  async hit(input: RateLimitInput): Promise<RateLimitResult> {
    assertPositiveInteger('windowSeconds', input.windowSeconds);
    assertPositiveInteger('limit', input.limit);
    const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % input.windowSeconds);
    const windowEnd = windowStart + input.windowSeconds;

    let count: number;
    try {
      const result = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: { S: `${RATE_LIMIT_KEY_PREFIX}${input.key}#${windowStart}` } },
          UpdateExpression: 'ADD #count :one SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#count': 'count', '#expiresAt': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': { N: '1' }, ':expiresAt': { N: String(windowEnd) } },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      count = Number(result.Attributes?.count?.N);
    } catch (error) {
      throw new StorageUnavailableError('hitRateLimit', error);
    }
    if (!Number.isSafeInteger(count)) throw new StorageRecordInvalidError('rate-limit count');

    const allowed = count <= input.limit;
    return { allowed, count, retryAfterSeconds: allowed ? 0 : Math.max(1, windowEnd - nowSeconds) };
  }

}
