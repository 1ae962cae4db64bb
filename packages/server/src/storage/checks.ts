import { isThrottlingError } from '@smithy/core/retry';

/** Small checks the stores share. */

export function isConditionalCheckFailed(error: unknown): boolean {
  // By name rather than instanceof: robust to duplicate SDK copies in a bundle.
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}

/**
 * DynamoDB refused for capacity (a hot key, the table's or the account's throughput), after the
 * SDK's own retries: the SDK's classification, so every throttling name it knows counts.
 */
export function isThrottled(error: unknown): boolean {
  return error instanceof Error && isThrottlingError(error as Parameters<typeof isThrottlingError>[0]);
}
