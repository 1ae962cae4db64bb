/**
 * POST /passkey/login/options and POST /passkey/login: a login without a password, with a
 * discoverable passkey. Holds the signing key only: no password is verified here (no hasher, no
 * pepper: the bundle carries no argon2 or bcrypt) and the credential's lookup names the account's
 * key (no fingerprint key).
 */
import { passkeyLoginOptionsRoute, passkeyLoginRoute } from '../packages/server/src/features/passkeys/passkey-routes.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { lambdaHookInvoker } from '../packages/server/src/runtimes/node/lambda-hook-invoker.js';
import { buildPasskeyLoginDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };
const platform = { dynamoDb: createLambdaDynamoDbClient, jwsSigner: createNodeJwsSigner, audit: auditToPowertools, mail: { log }, hookInvoker: lambdaHookInvoker };

export const handler = lambdaHandler([passkeyLoginOptionsRoute, passkeyLoginRoute], { passkeyLogin: async () => buildPasskeyLoginDependencies(await configWithSecrets(), platform) });
