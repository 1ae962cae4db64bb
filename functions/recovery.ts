/**
 * POST /password/reset, /password/reset/confirm, /email/verify and /email/verify/resend: the
 * routes that send or use one-time links (packages/server/src/features/recovery/README.md). One function: the same needs
 * (the hasher for a new password, the sessions a reset ends, the mail sender).
 */
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../packages/server/src/features/recovery/recovery-routes.js';
import { getRecoveryDependencies } from '../packages/server/src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute], {
  account: getRecoveryDependencies,
});
