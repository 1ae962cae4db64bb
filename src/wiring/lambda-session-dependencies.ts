import { readConfig } from '../config/read-config.js';
import { createAuditSink } from '../observability/audit.js';
import { onceUntilFailure } from '../shared/once-until-failure.js';
import { createDynamoDbClient } from '../storage/dynamodb-client.js';
import type { SessionDependencies } from '../use-cases/dependencies.js';
import { buildSessionDependencies, buildTokenService } from './build-dependencies.js';
import { getSecretEnv } from './secret-env.js';

/**
 * For the token and sessions functions, once per container: the token service (its key from SSM
 * when a parameter is named) and the sessions. A module of its own, apart from
 * lambda-dependencies.ts, whose Node platform carries the hasher: these bundles hash nothing.
 */
export const getSessionDependencies: () => Promise<SessionDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const config = readConfig(await getSecretEnv());
  return buildSessionDependencies(config, { dynamoDb: createDynamoDbClient, audit: createAuditSink() }, await buildTokenService(config));
});
