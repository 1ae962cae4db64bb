/** GET /.well-known/openid-configuration: points API Gateway JWT authorizers at the JWKS. */
import { openIdConfigurationRoute } from '../src/features/tokens/openid-configuration-route.js';
import { getPublicTokenService } from '../src/runtimes/lambda/lambda-public-tokens.js';
import { lambdaHandler } from '../src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([openIdConfigurationRoute], { publicTokens: getPublicTokenService });
