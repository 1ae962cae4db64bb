/**
 * POST /email/change, /email/change/confirm and /email/change/undo: an account's change of address
 * (packages/server/src/features/email-change/README.md). One function: the same needs (the public
 * keys, the fingerprint key for the new address's keys, the account and its factors moved
 * together, the mail). No hasher, pepper, signing key or TOTP key: plain env but the fingerprint key.
 */
import { confirmEmailChangeRoute, requestEmailChangeRoute, undoEmailChangeRoute } from '../packages/server/src/features/email-change/email-change-routes.js';
import type { EmailChangeServices } from '../packages/server/src/features/email-change/dependencies.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import type { CallerServices } from '../packages/server/src/features/sessions/caller-services.js';
import { buildEmailChangeDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

// Built once per container: the routes and their callers' check share it.
const emailChange = onceUntilFailure(async () => buildEmailChangeDependencies(await configWithSecrets(), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } }));

export const handler = lambdaHandler<EmailChangeServices & CallerServices>([requestEmailChangeRoute, confirmEmailChangeRoute, undoEmailChangeRoute] as AnyRoute<EmailChangeServices & CallerServices>[], {
  emailChange,
  authenticator: authenticatorOver(emailChange),
});
