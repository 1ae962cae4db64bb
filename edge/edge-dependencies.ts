import type { ApiServices } from '../src/api/services.js';
import { loginRateLimitsFromEnv } from '../src/app/login-rate-limits.js';
import { createPasswordHasher, DEFAULT_ARGON2_POLICY } from '../src/edge.js';
import { tableNameFromEnv } from '../src/storage/table.js';
import { oncePerKeyUntilFailure } from '../src/shared/once-until-failure.js';
import { AccountStore } from '../src/storage/account-store.js';
import { RateLimitStore } from '../src/storage/rate-limit-store.js';
import { publicTokenServiceFromEnv, tokenServiceFromEnv, type PublicTokenService, type TokenService } from '../src/tokens/token-service.js';
import type { AuthDependencies } from '../src/use-cases/dependencies.js';
import { createWorkerDynamoDbClient } from './dynamodb-client.js';
import { auditToLog, log } from './edge-log.js';
import { stringBindings, type WorkerEnv } from './worker-env.js';

export interface EdgeDependencies extends AuthDependencies {
  tokens: TokenService;
}

/**
 * One hash's memory at a time: a Worker isolate has 128 MB, and WASM argon2 runs synchronously
 * anyway, so a second request could only wait. Waiting is bounded so a burst answers 503 with
 * Retry-After instead of queueing for ever.
 */
const HASHER_CONCURRENCY = { memoryBudgetKiB: DEFAULT_ARGON2_POLICY.memoryKiB, maxQueue: 16, queueTimeoutMs: 2_000 };

/**
 * Stored hashes that would need more memory than an isolate has (128 MB, shared with the
 * script) are refused with ERR_HASH_PARAMS_OUT_OF_BOUNDS, a logged 500, instead of killing the
 * isolate and every request in it. The defaults allow argon2 up to 1 GiB and scrypt N=2^17, r=8
 * (128 MiB). Such records still verify on Lambda, whose next good login replaces them.
 */
const STORED_HASH_LIMITS = { argon2MaxMemoryKiB: 64 * 1024, scryptMaxN: 2 ** 16 };

/**
 * Built once per isolate and reused by every request it serves: the keys are imported once, the
 * WASM instance and the SDK client live on. Keyed by the `env` object, which workerd hands to
 * every request of an isolate. A failed build (bad config) is not kept, so the next request
 * retries and logs again.
 */
export const getEdgeDependencies: (env: WorkerEnv) => Promise<EdgeDependencies> = oncePerKeyUntilFailure(async (env) => {
  const built = await buildEdgeDependencies(env);
  log('INFO', 'dependencies built for this isolate');
  return built;
});

/** The API's services for one isolate's bindings (the Worker's `env`, Vercel's `process.env`). */
export function edgeServices(env: WorkerEnv): ApiServices {
  return { register: () => getEdgeDependencies(env), auth: () => getEdgeDependencies(env), publicTokens: () => getEdgePublicTokens(env) };
}

/**
 * For the JWKS and discovery routes: from PASSLANE_JWT_PUBLIC_KEYS when bound, so a Worker that
 * only publishes keys needs no private key and no AWS credentials; else from the private key.
 */
export const getEdgePublicTokens: (env: WorkerEnv) => Promise<PublicTokenService> = oncePerKeyUntilFailure((env) =>
  publicTokenServiceFromEnv(stringBindings(env)),
);

async function buildEdgeDependencies(bindings: WorkerEnv): Promise<EdgeDependencies> {
  const env = stringBindings(bindings);
  // PASSLANE_JWT_PRIVATE_KEY is required: in workerd tokenServiceFromEnv refuses to generate a key.
  const tokens = await tokenServiceFromEnv(env);
  const client = createWorkerDynamoDbClient(env);
  const table = tableNameFromEnv(env);
  return {
    tokens,
    rateLimits: loginRateLimitsFromEnv(env),
    hasher: createPasswordHasher({
      env,
      concurrency: HASHER_CONCURRENCY,
      limits: STORED_HASH_LIMITS,
      logger: { warn: (message, fields) => log('WARN', message, fields) },
    }),
    users: new AccountStore(client, table),
    counters: new RateLimitStore(client, table),
    audit: auditToLog,
  };
}
