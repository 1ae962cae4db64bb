/** GET /.well-known/openid-configuration: points API Gateway JWT authorizers at the JWKS. */
import { openIdConfigurationRoute } from '../packages/server/src/features/tokens/openid-configuration-route.js';
import { getPublicTokenService } from '../packages/server/src/runtimes/lambda/lambda-public-tokens.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([openIdConfigurationRoute], { publicTokens: getPublicTokenService });
