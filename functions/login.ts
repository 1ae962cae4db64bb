/**
 * POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn, ... }, and
 * POST /login/mfa, which finishes a login on an account with a second factor. Built from
 * its settings with the secrets and on the Node platform without the password blocklist: a
 * login sets no password, so its bundle holds none.
 */
import { loginRoute } from '../packages/server/src/features/login/login-route.js';
import { loginMfaRoute } from '../packages/server/src/features/login/login-mfa-route.js';
import type { LoginServices, MfaLoginServices } from '../packages/server/src/features/login/dependencies.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { nodePlatformWithoutBlocklist } from '../packages/server/src/runtimes/node/node-platform-base.js';
import { buildLoginDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const dependencies = async () => buildLoginDependencies(await configWithSecrets(), { ...nodePlatformWithoutBlocklist, dynamoDb: createLambdaDynamoDbClient });

export const handler = lambdaHandler<LoginServices & MfaLoginServices>([loginRoute, loginMfaRoute] as AnyRoute<LoginServices & MfaLoginServices>[], { login: dependencies, mfaLogin: dependencies });
