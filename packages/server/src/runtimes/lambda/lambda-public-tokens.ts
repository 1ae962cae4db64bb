import { readTokenConfig } from '../../config/token-config.js';
import { onceUntilFailure } from '../../shared/once-until-failure.js';
import { publicTokenServiceFromConfig, type PublicTokenService } from '../../features/tokens/token-service.js';
import { lambdaEnv } from './lambda-env.js';

/**
 * For the JWKS and discovery functions, once per container: plain env only
 * (PASSLANE_JWT_PUBLIC_KEYS, which the deployment resolves at deploy time), never the secret
 * store. A module of its own, apart from lambda-dependencies.ts, so these bundles reach neither
 * the SSM client nor the hashing backends, not even as a chunk they never load.
 */
export const getPublicTokenService: () => Promise<PublicTokenService> = /* @__PURE__ */ onceUntilFailure(async () =>
  publicTokenServiceFromConfig(readTokenConfig(lambdaEnv())),
);
