/** GET /.well-known/openid-configuration: points API Gateway JWT authorizers at the JWKS. */
import { getPublicTokenService } from '../src/app/create-auth-dependencies.js';
import { createOpenIdConfigurationHandler } from './create-handler.js';

export const handler = createOpenIdConfigurationHandler(getPublicTokenService);
