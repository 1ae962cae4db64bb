/** POST /register: { email, password } -> 201 { userId }. Loads no signing key: it issues no token. */
import { registerRoute } from '../src/api/routes/register.js';
import { getRegisterDependencies } from '../src/wiring/lambda-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([registerRoute], { register: getRegisterDependencies });
