import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConnection } from './settings.js';
import { dynamoDbClientConfig } from './dynamodb-client.js';

/** Attempts per call for bulk jobs: a batch can wait out throttling that a login should not. */
export const BULK_MAX_ATTEMPTS = 8;
export const BULK_REQUEST_TIMEOUT_MS = 5_000;

/**
 * The client for import, the rehash job and the inventory: the server's storage configuration
 * (endpoint, region, credentials), with SDK retries suited to one long-running
 * client. `adaptive` adds client-side rate limiting learnt from throttling responses, which fits
 * here because all of a job's traffic goes through this one client (unlike Lambda logins; see
 * dynamodb-client.ts). A Scan page can take longer than a GetItem, hence the longer timeout.
 * Not cached: the caller owns it and destroys it when done.
 */
export function createBulkDynamoDbClient(storage: DynamoDbConnection): DynamoDBClient {
  const config = dynamoDbClientConfig(storage);
  return new DynamoDBClient({
    ...config,
    retryMode: 'adaptive',
    maxAttempts: BULK_MAX_ATTEMPTS,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: BULK_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
}
