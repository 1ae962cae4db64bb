import { readConfig } from '../../config/read-config.js';
import { createAuditSink } from '../../observability/audit.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { createDynamoDbClient } from '../../storage/dynamodb-client.js';
import { publicTokenServiceFromConfig } from '../../features/tokens/token-service.js';
import type { SessionManagementDependencies } from '../../accounts/dependencies.js';
import { buildSessionDependencies } from '../../wiring/build-dependencies.js';
import { lambdaEnv } from './lambda-env.js';

/**
 * Logout and the session list (the sessions function), once per container: verification only,
 * from PASSLANE_JWT_PUBLIC_KEYS (plain env, lambda-env.ts), so the function neither holds the
 * signing key nor may read it. A module of its own, reaching neither the secret store
 * (secret-env.ts) nor the hasher, so the bundle carries neither, not even as a chunk it never loads.
 */
export const getSessionManagementDependencies: () => Promise<SessionManagementDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const config = readConfig(lambdaEnv());
  return buildSessionDependencies(config, { dynamoDb: createDynamoDbClient, audit: createAuditSink() }, await publicTokenServiceFromConfig(config.tokens));
});
