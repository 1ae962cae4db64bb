import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConnection } from './settings.js';
import { cachedPerConnection, connectionSettings } from '../shared/aws-connection.js';

/**
 * Retry: the SDK's `standard` mode, 3 attempts in all. It retries throttling, 5xx and network
 * errors with jittered exponential backoff and has a client-wide retry quota, so during an outage
 * a warm container stops retrying instead of multiplying load. Not `adaptive`: its client-side
 * rate limiter only learns from traffic through one client, and a Lambda container serves one
 * request at a time, so it would mostly add delay to the next login after a throttle.
 */
export const DYNAMODB_RETRY_MODE = 'standard';
export const DYNAMODB_MAX_ATTEMPTS = 3;

/**
 * Timeouts per attempt. Single-item DynamoDB calls take milliseconds; waiting longer only holds
 * a login open while storage is down. Worst case per operation: 3 × 1 s + backoff ≈ 3.2 s.
 * `throwOnRequestTimeout` is required: without it the handler only logs a warning when
 * requestTimeout passes and keeps waiting.
 */
export const DYNAMODB_CONNECTION_TIMEOUT_MS = 1_000;
export const DYNAMODB_REQUEST_TIMEOUT_MS = 1_000;

/** The client configuration `createDynamoDbClient` uses, exposed for tests and diagnostics. */
export function dynamoDbClientConfig(storage: DynamoDbConnection): DynamoDBClientConfig {
  return {
    retryMode: DYNAMODB_RETRY_MODE,
    // The middleware stack is resolved once per command class instead of on every send, the
    // login's requests included. We never change a client's stack after its first request; a
    // test that does must use a fresh client.
    cacheMiddleware: true,
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
    // Options object rather than `new NodeHttpHandler(...)`: the SDK builds its own
    // NodeHttpHandler from it, and we avoid importing @smithy/node-http-handler, which is only a
    // transitive dependency of the SDK.
    requestHandler: {
      connectionTimeout: DYNAMODB_CONNECTION_TIMEOUT_MS,
      requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    ...connectionSettings(storage),
  };
}

/**
 * The plain SDK client with this configuration, for every host and library user. (The Lambda
 * functions' own adds a fast path: runtimes/lambda/fast-paths.ts.) Uncached: tests that add
 * middleware build their own.
 */
export function newDynamoDbClient(storage: DynamoDbConnection): DynamoDBClient {
  return new DynamoDBClient(dynamoDbClientConfig(storage));
}

/** One client per container and configuration (aws-connection.ts). */
export const createDynamoDbClient: (storage: DynamoDbConnection) => DynamoDBClient = cachedPerConnection(newDynamoDbClient);
