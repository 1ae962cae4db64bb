/**
 * POST /passkey/login/options and POST /passkey/login: a login without a password, with a
 * discoverable passkey. Holds the signing key and the fingerprint key (the login's failure
 * counters); no pepper and no hasher: no password is verified here, so its platform's hasher
 * refuses every call and the bundle carries no argon2 or bcrypt.
 */
import type { PasswordHasher } from 'passlane/common';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import type { PasskeyServices } from '../packages/server/src/features/passkeys/dependencies.js';
import { passkeyLoginOptionsRoute, passkeyLoginRoute } from '../packages/server/src/features/passkeys/passkey-routes.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { buildPasskeyLoginDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import type { Platform } from '../packages/server/src/wiring/platform.js';

const warn = (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {});

/** A login's dependencies include a hasher; a passkey login never calls it, and a call would be a bug worth an error. */
const noHasher = new Proxy({} as PasswordHasher, {
  get: () => () => {
    throw new Error('the passkeyLogin function verifies no password and holds no hasher');
  },
});

const platform: Platform = {
  createPasswordHasher: () => noHasher,
  dynamoDb: createDynamoDbClient,
  jwsSigner: createNodeJwsSigner,
  warn,
  audit: auditToPowertools,
  mail: { log: { info: (message, fields) => logger.info(message, fields ?? {}), warn } },
};

type Services = Pick<PasskeyServices, 'passkeyLogin'>;
const routes = [passkeyLoginOptionsRoute, passkeyLoginRoute] as AnyRoute<Services>[];

export const handler = lambdaHandler<Services>(routes, { passkeyLogin: async () => buildPasskeyLoginDependencies(await configWithSecrets(), platform) });
