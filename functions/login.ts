/** POST /login: { email, password } -> 200 { accessToken, tokenType, expiresIn }. */
import { loginRoute } from '../src/api/routes/login.js';
import { getAuthDependencies } from '../src/wiring/lambda-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([loginRoute], { auth: getAuthDependencies });
