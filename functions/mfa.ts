/**
 * POST /mfa/totp, /mfa/totp/confirm, /mfa/recovery-codes and DELETE /mfa/totp: the account's
 * TOTP, behind a recent login. Verifies with the public keys, seals and opens with
 * PASSLANE_MFA_KEYS, mails the owner: no hasher, pepper, signing or fingerprint key.
 */
import { confirmTotpRoute, enrolTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute } from '../packages/server/src/features/mfa/mfa-routes.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { nodePlatformWithoutBlocklist } from '../packages/server/src/runtimes/node/node-platform-base.js';
import { buildMfaDependencies } from '../packages/server/src/wiring/build-dependencies.js';

export const handler = lambdaHandler([enrolTotpRoute, confirmTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute], {
  mfa: async () => buildMfaDependencies(await configWithSecrets(), nodePlatformWithoutBlocklist),
});
