/**
 * POST /password/reset, /password/reset/confirm, /email/verify and /email/verify/resend: the
 * routes that send or use one-time links (src/features/recovery/README.md). One function: the same needs
 * (the hasher for a new password, the sessions a reset ends, the mail sender).
 */
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../src/features/recovery/recovery-routes.js';
import { getRecoveryDependencies } from '../src/runtimes/lambda/lambda-dependencies.js';
import { lambdaHandler } from '../src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute], {
  account: getRecoveryDependencies,
});
