/** POST /password with a Bearer token: { currentPassword, newPassword } -> 204. */
import { changePasswordRoute } from '../packages/server/src/features/password/change-password-route.js';
import { getPasswordChangeDependencies } from '../packages/server/src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([changePasswordRoute], { account: getPasswordChangeDependencies });
