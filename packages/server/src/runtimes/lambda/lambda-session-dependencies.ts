import { readConfig } from '../../config/read-config.js';
import { createAuditSink } from '../../observability/audit.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { createDynamoDbClient } from '../../storage/dynamodb-client.js';
import { createNodeJwsSigner } from '../../features/tokens/node-jws-signer.js';
import type { SessionDependencies } from '../../accounts/dependencies.js';
import { buildSessionDependencies, buildTokenService } from '../../wiring/build-dependencies.js';
import { getSecretEnv } from './secret-env.js';

/**
 * POST /token, once per container: the signing key (from SSM when a parameter is named) and the
 * sessions. A module of its own, apart from lambda-dependencies.ts, whose Node platform carries
 * the hasher: this bundle hashes nothing.
 */
export const getSessionDependencies: () => Promise<SessionDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const config = readConfig(await getSecretEnv());
  const platform = { dynamoDb: createDynamoDbClient, audit: createAuditSink(), jwsSigner: createNodeJwsSigner };
  return buildSessionDependencies(config, platform, await buildTokenService(config, platform));
});
