/**
 * POST /mfa/totp, /mfa/totp/confirm, /mfa/recovery-codes and DELETE /mfa/totp: the account's
 * TOTP, behind a recent login. Verifies with the public keys, seals and opens with
 * PASSLANE_MFA_KEYS, mails the owner: no hasher, pepper, signing or fingerprint key.
 */
import { confirmTotpRoute, enrolTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute } from '../packages/server/src/features/mfa/mfa-routes.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildMfaDependencies } from '../packages/server/src/wiring/build-dependencies.js';

// No hasher in this platform: the bundle carries no argon2 or bcrypt binary.
const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

const mfa = onceUntilFailure(async () => buildMfaDependencies(await configWithSecrets(), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } }));

export const handler = lambdaHandler([enrolTotpRoute, confirmTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute], { mfa, authenticator: authenticatorOver(mfa) });
