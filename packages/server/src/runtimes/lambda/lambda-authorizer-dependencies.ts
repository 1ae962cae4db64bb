import { readAuthorizerConfig } from '../../config/authorizer-config.js';
import { readStorageConfig } from '../../config/storage-config.js';
import { readTokenConfig } from '../../config/token-config.js';
import type { AuthorizerConfig } from '../../features/sessions/settings.js';
import type { TokenConfig } from '../../features/tokens/settings.js';
import type { StorageConfig } from '../../storage/settings.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { createDynamoDbClient } from '../../storage/dynamodb-client.js';
import { SessionStore } from '../../storage/session-store.js';
import { publicTokenServiceFromConfig } from '../../features/tokens/token-service.js';
import type { AuthorizeAccessDependencies } from '../../features/sessions/authorize-access.js';
import { DEFAULT_VERDICT_CACHE_ENTRIES, SessionVerdictCache } from '../../features/sessions/session-verdict-cache.js';
import { lambdaEnv } from './lambda-env.js';

/**
 * The authorizer's parts: the public keys (never the private key, nor the right to read it), the
 * sessions items, and the container's verdict cache. From the configuration it needs and nothing
 * else: a module of its own, like lambda-public-tokens.ts, so the bundle holds neither the SSM
 * client nor a hasher.
 */
export async function buildAuthorizerDependencies(config: { storage: StorageConfig; tokens: TokenConfig; authorizer: AuthorizerConfig }): Promise<AuthorizeAccessDependencies> {
  return {
    tokens: await publicTokenServiceFromConfig(config.tokens),
    sessions: new SessionStore(createDynamoDbClient(config.storage), config.storage.table),
    cache: new SessionVerdictCache({ ttlSeconds: config.authorizer.cacheSeconds, maxEntries: DEFAULT_VERDICT_CACHE_ENTRIES }),
  };
}

/** Once per container: the cache lives as long as the container does. */
export const getAuthorizerDependencies: () => Promise<AuthorizeAccessDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const env = lambdaEnv();
  return buildAuthorizerDependencies({ storage: readStorageConfig(env), tokens: readTokenConfig(env), authorizer: readAuthorizerConfig(env) });
});
