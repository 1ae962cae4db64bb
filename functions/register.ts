/** POST /register: { email, password } -> 201 { userId }. Loads no signing key: it issues no token. */
import { registerRoute } from '../packages/server/src/features/register/register-route.js';
import { getRegisterDependencies } from '../packages/server/src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([registerRoute], { register: getRegisterDependencies });
