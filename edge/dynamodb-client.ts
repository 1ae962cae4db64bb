import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigError } from '../src/app/login-rate-limits.js';
import { dynamoDbClientConfig } from '../src/storage/dynamodb-client.js';
import type { StringEnv } from './worker-env.js';

/**
 * The shared client settings (retries, timeouts, local endpoint), plus what Lambda gets for free:
 * Workers have no AWS credential chain and no AWS_REGION of their own, so both must be bindings.
 * The browser build of the SDK sends requests with `fetch` and signs them with Web Crypto.
 */
export function workerDynamoDbClientConfig(env: StringEnv): DynamoDBClientConfig {
  // env passed explicitly: the default (process.env) does not exist in workerd.
  const config = dynamoDbClientConfig(env);
  if (config.endpoint !== undefined) return config;
  const region = present(env.AWS_REGION);
  const accessKeyId = present(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = present(env.AWS_SECRET_ACCESS_KEY);
  if (region === undefined) throw new ConfigError('AWS_REGION is not set (a [vars] entry in wrangler.toml)');
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set as Worker secrets');
  }
  return { ...config, region, credentials: { accessKeyId, secretAccessKey, sessionToken: present(env.AWS_SESSION_TOKEN) } };
}

export function createWorkerDynamoDbClient(env: StringEnv): DynamoDBClient {
  return new DynamoDBClient(workerDynamoDbClientConfig(env));
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
