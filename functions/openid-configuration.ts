/**
 * GET /.well-known/openid-configuration (API Gateway JWT authorizers find the JWKS there) and
 * GET /.well-known/oauth-authorization-server (RFC 8414): one document, the same needs.
 */
import { authorizationServerMetadataRoute } from '../packages/server/src/features/tokens/authorization-server-metadata-route.js';
import { openIdConfigurationRoute } from '../packages/server/src/features/tokens/openid-configuration-route.js';
import { readTokenConfig } from '../packages/server/src/config/token-config.js';
import { publicTokenServiceFromConfig } from '../packages/server/src/features/tokens/token-service.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([openIdConfigurationRoute, authorizationServerMetadataRoute], {
  // Plain env only (PASSLANE_JWT_PUBLIC_KEYS), never the secret store; the token service itself,
  // not the wiring, whose stores would bring the SDK: the bundle is its entry alone.
  publicTokens: async () => publicTokenServiceFromConfig(readTokenConfig(lambdaEnv())),
});
