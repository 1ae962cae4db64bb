import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigError } from '../src/config/config-error.js';
import type { DynamoDbConnection } from '../src/config/storage-config.js';
import { dynamoDbClientConfig } from '../src/storage/dynamodb-client.js';

/**
 * The shared client settings (retries, timeouts, local endpoint), plus what Lambda gets for free:
 * Workers have no AWS credential chain and no AWS_REGION of their own, so both must be bindings.
 * The browser build of the SDK sends requests with `fetch` and signs them with Web Crypto.
 */
export function workerDynamoDbClientConfig(storage: DynamoDbConnection): DynamoDBClientConfig {
  const config = dynamoDbClientConfig(storage);
  if (config.endpoint !== undefined) return config;
  if (storage.region === undefined) throw new ConfigError('AWS_REGION', 'is not set (a [vars] entry in wrangler.toml)');
  if (storage.credentials === undefined) {
    throw new ConfigError('AWS_ACCESS_KEY_ID', 'and AWS_SECRET_ACCESS_KEY must be set as Worker secrets');
  }
  return { ...config, region: storage.region, credentials: storage.credentials };
}

export function createWorkerDynamoDbClient(storage: DynamoDbConnection): DynamoDBClient {
  return new DynamoDBClient(workerDynamoDbClientConfig(storage));
}
