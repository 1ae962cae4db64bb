/** POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn }. */
import { loginRoute } from '../src/features/login/login-route.js';
import { getAuthDependencies } from '../src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([loginRoute], { auth: getAuthDependencies });
