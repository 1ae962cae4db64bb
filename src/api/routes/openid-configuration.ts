import { openIdConfiguration } from '../../tokens/openid-configuration.js';
import { HttpError } from '../http-error.js';
import { defineRoute } from '../route.js';
import { jsonResponse } from '../responses.js';
import type { ApiServices } from '../services.js';
import { PUBLIC_CACHE } from './jwks.js';

/** GET /.well-known/openid-configuration: where API Gateway JWT authorizers find the keys. */
export const openIdConfigurationRoute = defineRoute<Pick<ApiServices, 'publicTokens'>>({
  name: 'openidConfiguration',
  method: 'GET',
  path: '/.well-known/openid-configuration',
  json: false,
  handle: async ({ request, services }) => {
    const document = openIdConfiguration(await services.publicTokens(), new URL(request.url).origin);
    if (document === undefined) {
      throw new HttpError(404, 'not_found', 'discovery is not configured: set PASSLANE_PUBLIC_URL, or PASSLANE_JWT_ISSUER to the API URL');
    }
    return jsonResponse(200, document, PUBLIC_CACHE);
  },
});
