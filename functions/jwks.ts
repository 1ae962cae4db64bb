/**
 * GET /.well-known/jwks.json: the public signing keys, cacheable. Needs no table or hasher, and
 * no private key when PASSLANE_JWT_PUBLIC_KEYS is set (as serverless.yml does).
 */
import { jwksRoute } from '../packages/server/src/features/tokens/jwks-route.js';
import { readTokenConfig } from '../packages/server/src/config/token-config.js';
import { publicTokenServiceFromConfig } from '../packages/server/src/features/tokens/token-service.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([jwksRoute], {
  // Plain env only (PASSLANE_JWT_PUBLIC_KEYS), never the secret store; the token service itself,
  // not the wiring, whose stores would bring the SDK: the bundle is its entry alone.
  publicTokens: async () => publicTokenServiceFromConfig(readTokenConfig(lambdaEnv())),
});
