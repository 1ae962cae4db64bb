import { JWKS_MAX_AGE_SECONDS } from './jwks.js';
import type { PublicTokenServices } from './dependencies.js';
import { Jwk, Jwks } from './token-schemas.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';

export const PUBLIC_CACHE = { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };

/** GET /.well-known/jwks.json: the public signing keys, cacheable. */
export const jwksRoute = defineRoute<PublicTokenServices>({
  name: 'jwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  // Public keys: any site's verifier may fetch them (api/README.md, "CORS").
  cors: 'any-origin',
  doc: {
    operationId: 'jwks',
    summary: 'The public keys access tokens are signed with',
    description: 'The current key first, then previous keys still accepted during a rotation.',
    security: 'none',
    answers: {
      200: {
        description: 'JSON Web Key Set (RFC 7517).',
        headers: { 'Cache-Control': { required: true, description: 'Public and cacheable, e.g. `public, max-age=300`.', schema: { type: 'string' } } },
        body: { name: 'Jwks', schema: Jwks, parts: [{ name: 'Jwk', schema: Jwk }] },
      },
    },
  },
  handle: async ({ services }) => jsonResponse(200, (await services.publicTokens()).jwks(), PUBLIC_CACHE),
});
