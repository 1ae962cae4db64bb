import { DEFAULT_TABLE_NAME, type StorageConfig } from '../storage/settings.js';
import { text, type Env } from './env.js';

/**
 * PASSLANE_TABLE; DYNAMODB_ENDPOINT; AWS_REGION, else AWS_DEFAULT_REGION (Lambda always sets
 * AWS_REGION); AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN when both keys are
 * set, else the SDK's credential chain.
 */
export function readStorageConfig(env: Env): StorageConfig {
  const config: StorageConfig = { table: text(env, 'PASSLANE_TABLE') ?? DEFAULT_TABLE_NAME };
  const endpoint = text(env, 'DYNAMODB_ENDPOINT');
  const region = text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION');
  const accessKeyId = text(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'AWS_SECRET_ACCESS_KEY');
  const sessionToken = text(env, 'AWS_SESSION_TOKEN');
  if (endpoint !== undefined) config.endpoint = endpoint;
  if (region !== undefined) config.region = region;
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    config.credentials = sessionToken === undefined ? { accessKeyId, secretAccessKey } : { accessKeyId, secretAccessKey, sessionToken };
  }
  return config;
}
