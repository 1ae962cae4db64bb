/**
 * POST /passkeys/registration/options, POST /passkeys/registration, GET /passkeys, PATCH and
 * DELETE /passkeys/{id}: the account's passkeys. Verifies access tokens with the public keys and
 * mails the owner; holds no secret (a passkey is a public key, recovery codes are hashed), so its
 * settings are plain env and its bundle has no hasher or SSM client.
 */
import { readConfig } from '../packages/server/src/config/read-config.js';
import {
  listPasskeysRoute,
  passkeyRegistrationOptionsRoute,
  registerPasskeyRoute,
  removePasskeyRoute,
  renamePasskeyRoute,
} from '../packages/server/src/features/passkeys/passkey-routes.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildPasskeyDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

const passkeys = onceUntilFailure(async () => buildPasskeyDependencies(readConfig(lambdaEnv()), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } }));

export const handler = lambdaHandler([passkeyRegistrationOptionsRoute, registerPasskeyRoute, listPasskeysRoute, renamePasskeyRoute, removePasskeyRoute], {
  passkeys,
  authenticator: authenticatorOver(passkeys),
});
