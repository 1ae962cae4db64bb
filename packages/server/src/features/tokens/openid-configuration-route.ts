import { openIdConfiguration } from './openid-configuration.js';
import { HttpError } from '../../api/http-error.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { PublicTokenServices } from './dependencies.js';
import { PUBLIC_CACHE } from './jwks-route.js';

/** GET /.well-known/openid-configuration: where API Gateway JWT authorizers find the keys. */
export const openIdConfigurationRoute = defineRoute<PublicTokenServices>({
  name: 'openidConfiguration',
  method: 'GET',
  path: '/.well-known/openid-configuration',
  json: false,
  handle: async ({ request, services }) => {
    const document = openIdConfiguration(await services.publicTokens(), new URL(request.url).origin);
    if (document === undefined) {
      throw new HttpError('not_found', 'discovery is not configured: set PASSLANE_PUBLIC_URL, or PASSLANE_JWT_ISSUER to the API URL');
    }
    return jsonResponse(200, document, PUBLIC_CACHE);
  },
});
