import { createPasswordHasher } from '../index.js';
import { logger } from '../observability/logger.js';
import { createAuditSink } from '../observability/audit.js';
import { getSecretEnv } from './secret-env.js';
import { createDynamoDbClient } from '../storage/dynamodb-client.js';
import { tableNameFromEnv } from '../storage/table.js';
import { UserStore } from '../storage/user-store.js';
import { tokenServiceFromEnv, type TokenService } from '../tokens/token-service.js';
import type { AuthDependencies } from '../use-cases/dependencies.js';
import { loginRateLimitsFromEnv } from './login-rate-limits.js';

// Kept importable from here, where they were first defined.
export { ConfigError, DEFAULT_LOGIN_RATE_LIMITS, loginRateLimitsFromEnv } from './login-rate-limits.js';

type Env = Record<string, string | undefined>;

/** What the handlers need: the use-cases' dependencies, with the full token service (for the JWKS). */
export interface AppDependencies extends AuthDependencies {
  tokens: TokenService;
}

export interface CreateAuthDependenciesOptions extends Partial<AuthDependencies> {
  /** Where a local run keeps its signing key (tokenServiceFromEnv); unused when the key is in env. */
  dataDir?: string;
  tokens?: TokenService;
}

/**
 * Builds everything from env. No I/O besides reading (or, locally, creating) the signing key:
 * the DynamoDB client connects on first use and the hasher loads its backend on first hash.
 * Explicit parts in `options` win, so tests can inject a counting hasher or a fixed clock.
 */
export async function createAuthDependencies(env: Env, options: CreateAuthDependenciesOptions = {}): Promise<AppDependencies> {
  const { dataDir, tokens, hasher, users, rateLimits, audit, ...rest } = options;
  return {
    ...rest,
    rateLimits: rateLimits ?? loginRateLimitsFromEnv(env),
    hasher: hasher ?? createPasswordHasher({ env, logger: { warn: (message, fields) => logger.warn(message, fields ?? {}) } }),
    users: users ?? new UserStore(createDynamoDbClient(env), tableNameFromEnv(env)),
    audit: audit ?? createAuditSink(),
    tokens: tokens ?? (await tokenServiceFromEnv(env, { dataDir })),
  };
}

/**
 * Per container, created on the first invocation rather than at import, so a cold start that
 * only serves the JWKS, or a test that builds its own, pays for nothing else. A failed build
 * (bad config) is not cached: the next invocation tries again and logs the error again.
 * The env is process.env with the secrets (pepper keys, signing key) fetched from SSM when the
 * deployment names parameters instead of values (secret-env.ts).
 */
let dependencies: Promise<AppDependencies> | undefined;
let tokenService: Promise<TokenService> | undefined;

export function getAuthDependencies(): Promise<AppDependencies> {
  dependencies ??= Promise.all([getSecretEnv(), getTokenService()])
    .then(([env, tokens]) => createAuthDependencies(env, { tokens }))
    .catch((error: unknown) => {
      dependencies = undefined;
      throw error;
    });
  return dependencies;
}

/** The token service alone, for the JWKS function (no hasher, no table). */
export function getTokenService(): Promise<TokenService> {
  tokenService ??= getSecretEnv()
    .then((env) => tokenServiceFromEnv(env))
    .catch((error: unknown) => {
      tokenService = undefined;
      throw error;
    });
  return tokenService;
}
