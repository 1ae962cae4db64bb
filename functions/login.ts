/** POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn }. */
import { loginRoute } from '../packages/server/src/features/login/login-route.js';
import { getAuthDependencies } from '../packages/server/src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([loginRoute], { auth: getAuthDependencies });
