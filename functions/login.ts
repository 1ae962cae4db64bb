/**
 * POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn, ... }. Built from
 * its settings with the secrets and on the Node platform without the password blocklist: a
 * login sets no password, so its bundle holds none.
 */
import { loginRoute } from '../packages/server/src/features/login/login-route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { nodePlatformWithoutBlocklist } from '../packages/server/src/runtimes/node/node-platform-base.js';
import { buildLoginDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaHandler([loginRoute], {
  login: async () => buildLoginDependencies(await configWithSecrets(), nodePlatformWithoutBlocklist),
});
