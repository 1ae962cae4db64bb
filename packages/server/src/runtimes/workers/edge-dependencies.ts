import { oncePerKeyUntilFailure } from '../../shared/once-until-failure.js';
import type { PublicTokenService } from '../../features/tokens/token-service.js';
import type { ApiServices } from '../../wiring/api-services.js';
import { buildAuthDependencies, buildPublicTokenService, type AppDependencies } from '../../wiring/build-dependencies.js';
import { sessionAuthenticator } from '../../features/mfa/session-authenticator.js';
import type { Platform } from '../../wiring/platform.js';
import { edgePlatform } from './edge-platform.js';
import { log } from './edge-log.js';
import { readWorkerConfig, type WorkerEnv } from './worker-env.js';

/**
 * The dependencies on `platform` (edgePlatform, plus the entry's `afterEventAppend`), built once per
 * isolate and reused by every request it serves: the keys are imported once, the WASM instance
 * and the SDK client live on. Keyed by the `env` object, which workerd hands to every request of
 * an isolate. A failed build (bad config) is not kept, so the next request retries and logs
 * again. PASSLANE_JWT_PRIVATE_KEY is required: the edge has no filesystem for a generated key.
 */
export function edgeDependencies(platform: Platform = edgePlatform): (env: WorkerEnv) => Promise<AppDependencies> {
  return oncePerKeyUntilFailure(async (env) => {
    const built = await buildAuthDependencies(readWorkerConfig(env), platform, {}, { mailAtStart: true });
    log('INFO', 'dependencies built for this isolate');
    return built;
  });
}

/**
 * For the JWKS and discovery routes: from PASSLANE_JWT_PUBLIC_KEYS when bound, so a Worker that
 * only publishes keys needs no private key and no AWS credentials; else from the private key.
 */
export const getEdgePublicTokens: (env: WorkerEnv) => Promise<PublicTokenService> = oncePerKeyUntilFailure((env) =>
  buildPublicTokenService(readWorkerConfig(env)),
);

/** The API's services for one isolate's bindings (the Worker's `env`, Vercel's `process.env`), on `platform`: one per entry. */
export function edgeServices(platform: Platform = edgePlatform): (env: WorkerEnv) => ApiServices {
  const getEdgeDependencies = edgeDependencies(platform);
  return (env) => ({
    login: () => getEdgeDependencies(env),
    mfaLogin: () => getEdgeDependencies(env),
    mfa: () => getEdgeDependencies(env),
    factorUndo: () => getEdgeDependencies(env),
    passkeys: () => getEdgeDependencies(env),
    passkeyLogin: () => getEdgeDependencies(env),
    register: () => getEdgeDependencies(env),
    password: () => getEdgeDependencies(env),
    recovery: () => getEdgeDependencies(env),
    deviceApproval: () => getEdgeDependencies(env),
    refresh: () => getEdgeDependencies(env),
    sessions: () => getEdgeDependencies(env),
    authenticator: async () => sessionAuthenticator(await getEdgeDependencies(env)),
    account: async () => getEdgeDependencies(env),
    emailChange: () => getEdgeDependencies(env),
    federation: () => getEdgeDependencies(env),
    identities: () => getEdgeDependencies(env),
    publicTokens: () => getEdgePublicTokens(env),
  });
}
