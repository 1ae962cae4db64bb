import type { ApiServices } from '../api/services.js';
import { createPasswordHasher } from '../index.js';
import { logger } from '../observability/logger.js';
import { createAuditSink } from '../observability/audit.js';
import { readProcessEnv } from '../runtime/detect-runtime.js';
import { onceUntilFailure } from '../shared/once-until-failure.js';
import { getSecretEnv } from './secret-env.js';
import { createDynamoDbClient } from '../storage/dynamodb-client.js';
import { tableNameFromEnv } from '../storage/table.js';
import { AccountStore } from '../storage/account-store.js';
import { RateLimitStore } from '../storage/rate-limit-store.js';
import { publicTokenServiceFromEnv, tokenServiceFromEnv, type PublicTokenService, type TokenService } from '../tokens/token-service.js';
import type { AuthDependencies, RegisterDependencies } from '../use-cases/dependencies.js';
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
  const { dataDir, tokens, ...parts } = options;
  return { ...createRegisterDependencies(env, parts), tokens: tokens ?? (await tokenServiceFromEnv(env, { dataDir })) };
}

/** All but the token service: what registration needs, with no signing key to load. No I/O. */
export function createRegisterDependencies(env: Env, options: Partial<RegisterDependencies> = {}): RegisterDependencies {
  const { hasher, users, counters, rateLimits, audit, ...rest } = options;
  const table = tableNameFromEnv(env);
  return {
    ...rest,
    rateLimits: rateLimits ?? loginRateLimitsFromEnv(env),
    hasher: hasher ?? createPasswordHasher({ env, logger: { warn: (message, fields) => logger.warn(message, fields ?? {}) } }),
    users: users ?? new AccountStore(createDynamoDbClient(env), table),
    counters: counters ?? new RateLimitStore(createDynamoDbClient(env), table),
    audit: audit ?? createAuditSink(),
  };
}

/** The API's services over dependencies already built (long-lived hosts build them once at start). */
export function servicesOf(deps: AppDependencies): ApiServices {
  return { register: async () => deps, auth: async () => deps, publicTokens: async () => deps.tokens };
}

/**
 * Per container, each built on the first invocation rather than at import, so a cold start pays
 * only for what its function uses (the JWKS function builds no hasher or table client; register
 * loads no signing key), and a test that builds its own pays for nothing. A failed build (bad
 * config) is not cached: the next invocation tries again and logs the error again.
 * The env is process.env with the secrets (pepper keys, signing key) fetched from SSM when the
 * deployment names parameters instead of values (secret-env.ts).
 * Each use is marked `@__PURE__` so esbuild drops the ones a function does not use: otherwise
 * every bundle would keep them all, and the JWKS zip would carry the hasher and its binaries.
 */
/** Login and password change: everything, with the signing key. */
export const getAuthDependencies: () => Promise<AppDependencies> = /* @__PURE__ */ onceUntilFailure(async () => {
  const [env, tokens] = await Promise.all([getSecretEnv(), getTokenService()]);
  return createAuthDependencies(env, { tokens });
});

/** Registration: no token service, so the function needs no signing key (nor the right to read it). */
export const getRegisterDependencies: () => Promise<RegisterDependencies> = /* @__PURE__ */ onceUntilFailure(async () =>
  createRegisterDependencies(await getSecretEnv()),
);

/** The full token service alone (issue, verify, publish). */
export const getTokenService: () => Promise<TokenService> = /* @__PURE__ */ onceUntilFailure(async () => tokenServiceFromEnv(await getSecretEnv()));

/**
 * For the JWKS and discovery functions: plain env only (PASSLANE_JWT_PUBLIC_KEYS, which the
 * deployment resolves at deploy time), never the secret store, so their bundles carry no AWS SDK
 * at all and they need no right to read a parameter.
 */
export const getPublicTokenService: () => Promise<PublicTokenService> = /* @__PURE__ */ onceUntilFailure(async () =>
  publicTokenServiceFromEnv(readProcessEnv()),
);
