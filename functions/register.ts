/** POST /register: { email, password } -> 201 { userId }. Loads no signing key: it issues no token. */
import { registerRoute } from '../packages/server/src/features/register/register-route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { buildRegisterDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaHandler([registerRoute], {
  register: async () => buildRegisterDependencies(await configWithSecrets(), { ...nodePlatform, dynamoDb: createLambdaDynamoDbClient }),
});
