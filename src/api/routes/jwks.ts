import { JWKS_MAX_AGE_SECONDS } from '../../tokens/jwks.js';
import { defineRoute } from '../route.js';
import { jsonResponse } from '../responses.js';
import type { ApiServices } from '../services.js';

export const PUBLIC_CACHE = { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

/** GET /.well-known/jwks.json: the public signing keys, cacheable. */
export const jwksRoute = defineRoute<Pick<ApiServices, 'publicTokens'>>({
  name: 'jwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  json: false,
  handle: async ({ services }) => jsonResponse(200, (await services.publicTokens()).jwks(), PUBLIC_CACHE),
});
