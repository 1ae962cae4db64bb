/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
import { changePasswordRoute } from '../src/api/routes/change-password.js';
import { getPasswordChangeDependencies } from '../src/wiring/lambda-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([changePasswordRoute], { account: getPasswordChangeDependencies });
