import { GetParameterCommand, SSMClient, type SSMClientConfig } from '@aws-sdk/client-ssm';
import type { SecretSource } from './load-secrets.js';

/**
 * Timeouts per attempt, 3 attempts (the SDK's standard retry). This runs inside a cold start,
 * which API Gateway waits for: a hung call should fail in seconds rather than run into the
 * function's timeout. `throwOnRequestTimeout`: without it the SDK only logs a warning.
 */
export const SSM_CONNECTION_TIMEOUT_MS = 1_000;
export const SSM_REQUEST_TIMEOUT_MS = 2_000;

export function ssmClientConfig(overrides: SSMClientConfig = {}): SSMClientConfig {
  return {
    retryMode: 'standard',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: SSM_CONNECTION_TIMEOUT_MS,
      requestTimeout: SSM_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    ...overrides,
  };
}

/**
 * SSM Parameter Store: GetParameter with decryption (SecureString, KMS). Region and credentials
 * come from the SDK's defaults, which on Lambda are the function's own role and region.
 */
export function createSsmSecretSource(client: SSMClient = new SSMClient(ssmClientConfig())): SecretSource {
  return {
    async get(name) {
      const { Parameter } = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
      const value = Parameter?.Value;
      if (value === undefined || value === '') throw new Error(`parameter ${name} has no value`);
      return value;
    },
  };
}
