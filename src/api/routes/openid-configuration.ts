import { openIdConfiguration } from '../../tokens/openid-configuration.js';
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
  handle: async ({ request, services }) =>
    jsonResponse(200, openIdConfiguration(await services.publicTokens(), new URL(request.url).origin), PUBLIC_CACHE),
});
