/**
 * An API Gateway Lambda authorizer for the team's other APIs: a passlane access token whose
 * session is still live (HTTP API payload 2.0 simple responses; REST TOKEN and REQUEST). Public
 * keys and the sessions items only; no private key, hasher or SSM. See infra/README.md.
 */
import { lambdaAuthorizer } from '../packages/server/src/runtimes/lambda/lambda-authorizer.js';
import { readAuthorizerConfig } from '../packages/server/src/config/authorizer-config.js';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { readTokenConfig } from '../packages/server/src/config/token-config.js';
import { readMfaConfig } from '../packages/server/src/config/mfa-config.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { buildAuthorizerDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaAuthorizer(async () => {
  const env = lambdaEnv();
  return buildAuthorizerDependencies(
    { storage: readStorageConfig(env), tokens: readTokenConfig(env), authorizer: readAuthorizerConfig(env), mfa: readMfaConfig(env) },
    { dynamoDb: createLambdaDynamoDbClient },
  );
});
