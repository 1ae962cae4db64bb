/**
 * POST /mfa/undo: the "this wasn't me" link of a factor's mail. No session and no token service
 * (the link is the proof), no TOTP key (a factor is removed by a store write, never opened), no
 * hasher (the password is made unusable, not set), no fingerprint key (the link names the
 * account's key): plain env, and a bundle with no hasher or SSM client.
 */
import { readConfig } from '../packages/server/src/config/read-config.js';
import { undoFactorRoute } from '../packages/server/src/features/mfa/undo-factor-route.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { buildFactorUndoDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

export const handler = lambdaHandler([undoFactorRoute], {
  factorUndo: async () => buildFactorUndoDependencies(readConfig(lambdaEnv()), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } }),
});
