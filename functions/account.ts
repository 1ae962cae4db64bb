/**
 * DELETE /account with a Bearer token -> 204: the owner erases the account (features/account).
 * The public keys and the fingerprint key; no pepper, signing key or TOTP key.
 */
import { deleteAccountRoute } from '../packages/server/src/features/account/delete-account-route.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { buildOwnAccountDependencies } from '../packages/server/src/wiring/build-dependencies.js';

// No hasher in this platform: the bundle carries no argon2 or bcrypt binary.
const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

// Built once per container: the route and its callers' check share it.
const account = onceUntilFailure(async () => buildOwnAccountDependencies(await configWithSecrets(), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } }));

export const handler = lambdaHandler([deleteAccountRoute], { account, authenticator: authenticatorOver(account) });
