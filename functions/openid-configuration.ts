/** GET /.well-known/openid-configuration: points API Gateway JWT authorizers at the JWKS. */
import { openIdConfigurationRoute } from '../src/api/routes/openid-configuration.js';
import { getPublicTokenService } from '../src/wiring/lambda-public-tokens.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([openIdConfigurationRoute], { publicTokens: getPublicTokenService });
