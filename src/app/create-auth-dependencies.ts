import { createPasswordHasher } from '../index.js';
import { logger } from '../observability/logger.js';
import { createAuditSink } from '../observability/audit.js';
import { createDynamoDbClient } from '../storage/dynamodb-client.js';
import { tableNameFromEnv } from '../storage/table.js';
import { UserStore } from '../storage/user-store.js';
import { tokenServiceFromEnv, type TokenService } from '../tokens/token-service.js';
import type { AuthDependencies, LoginRateLimits } from '../use-cases/dependencies.js';

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

/** A setting is missing or makes no sense; the message names the variable and the allowed range. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_LOGIN_RATE_LIMITS: Readonly<LoginRateLimits> = { perAccount: 10, perIp: 100, windowSeconds: 300 };

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

/** PASSLANE_LOGIN_LIMIT_PER_ACCOUNT, PASSLANE_LOGIN_LIMIT_PER_IP, PASSLANE_LOGIN_LIMIT_WINDOW_S. */
export function loginRateLimitsFromEnv(env: Env): LoginRateLimits {
  return {
    perAccount: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_PER_ACCOUNT', DEFAULT_LOGIN_RATE_LIMITS.perAccount, 1_000_000),
    perIp: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_PER_IP', DEFAULT_LOGIN_RATE_LIMITS.perIp, 1_000_000),
    // Up to a day: windows are DynamoDB items with a TTL, and longer ones are better done elsewhere.
    windowSeconds: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_WINDOW_S', DEFAULT_LOGIN_RATE_LIMITS.windowSeconds, 86_400),
  };
}

function positiveInteger(env: Env, name: string, fallback: number, max: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max} (got ${JSON.stringify(text)})`);
  }
  return value;
}

/**
 * Per container, created on the first invocation rather than at import, so a cold start that
 * only serves the JWKS, or a test that builds its own, pays for nothing else. A failed build
 * (bad config) is not cached: the next invocation tries again and logs the error again.
 */
let dependencies: Promise<AppDependencies> | undefined;
let tokenService: Promise<TokenService> | undefined;

export function getAuthDependencies(): Promise<AppDependencies> {
  dependencies ??= getTokenService()
    .then((tokens) => createAuthDependencies(process.env, { tokens }))
    .catch((error: unknown) => {
      dependencies = undefined;
      throw error;
    });
  return dependencies;
}

/** The token service alone, for the JWKS function (no hasher, no table). */
export function getTokenService(): Promise<TokenService> {
  tokenService ??= tokenServiceFromEnv(process.env).catch((error: unknown) => {
    tokenService = undefined;
    throw error;
  });
  return tokenService;
}
