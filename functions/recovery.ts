/**
 * POST /password/reset, /password/reset/confirm, /email/verify and /email/verify/resend: the
 * routes that send or use one-time links (packages/server/src/features/recovery/README.md). One function: the same needs
 * (the hasher for a new password, the sessions a reset ends, the mail sender).
 */
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../packages/server/src/features/recovery/recovery-routes.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { buildRecoveryDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaHandler([requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute], {
  recovery: async () => buildRecoveryDependencies(await configWithSecrets(), nodePlatform),
});
