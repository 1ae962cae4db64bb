/**
 * DELETE /account with a Bearer token -> 204: the owner erases the account (features/account).
 * The public keys and the fingerprint key; no pepper, signing key or TOTP key.
 */
import { deleteAccountRoute } from '../packages/server/src/features/account/delete-account-route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { buildOwnAccountDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaHandler([deleteAccountRoute], {
  account: async () => buildOwnAccountDependencies(await configWithSecrets(), { ...nodePlatform, dynamoDb: createLambdaDynamoDbClient }),
});
