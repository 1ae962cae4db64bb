import { JWKS_MAX_AGE_SECONDS } from './jwks.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';
import type { PublicTokenServices } from './dependencies.js';

export const PUBLIC_CACHE = { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

/** GET /.well-known/jwks.json: the public signing keys, cacheable. */
export const jwksRoute = defineRoute<PublicTokenServices>({
  name: 'jwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  json: false,
  handle: async ({ services }) => jsonResponse(200, (await services.publicTokens()).jwks(), PUBLIC_CACHE),
});
