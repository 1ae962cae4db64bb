/**
 * POST /password with a Bearer token: { currentPassword, newPassword } -> 204. The blocklist the
 * new password is checked against, and the public keys only (it issues no token).
 */
import { changePasswordRoute } from '../packages/server/src/features/password/change-password-route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildPasswordChangeDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const password = onceUntilFailure(async () => buildPasswordChangeDependencies(await configWithSecrets(), { ...nodePlatform, dynamoDb: createLambdaDynamoDbClient }));

export const handler = lambdaHandler([changePasswordRoute], { password, authenticator: authenticatorOver(password) });
