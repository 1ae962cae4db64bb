import { authorizationServerMetadata, type AuthorizationServerMetadata } from './authorization-server-metadata.js';
import type { PublicTokenServices } from './dependencies.js';
import { PUBLIC_CACHE } from './jwks-route.js';
import { AuthorizationServerMetadata as AuthorizationServerMetadataSchema } from './token-schemas.js';
import { NOT_FOUND } from '../../api/answers.js';
import { HttpError } from '../../api/http-error.js';
import type { AnswerDoc } from '../../api/operation-doc.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse, type ApiResponse } from '../../api/responses.js';

/** The discovery documents' 200 (both are the same document). */
export const DISCOVERY_DOCUMENT: AnswerDoc = {
  description: 'The issuer, its token endpoint and its keys.',
  headers: { 'Cache-Control': { required: true, description: 'Public and cacheable, e.g. `public, max-age=300`.', schema: { type: 'string' } } },
  body: { name: 'AuthorizationServerMetadata', schema: AuthorizationServerMetadataSchema },
};

/** A discovery document, publicly cacheable; 404 while the API's URL is not configured. */
export function discoveryAnswer(document: AuthorizationServerMetadata | undefined): ApiResponse {
  if (document === undefined) {
    throw new HttpError('not_found', 'discovery is not configured: set PASSLANE_PUBLIC_URL, or PASSLANE_JWT_ISSUER to the API URL');
  }
  return jsonResponse(200, document, PUBLIC_CACHE);
}

/** GET /.well-known/oauth-authorization-server: RFC 8414's metadata, for OAuth 2.0 clients that discover. */
export const authorizationServerMetadataRoute = defineRoute<PublicTokenServices>({
  name: 'authorizationServerMetadata',
  method: 'GET',
  path: '/.well-known/oauth-authorization-server',
  // A public document: any site's client may read where the keys are (api/README.md, "CORS").
  cors: 'any-origin',
  doc: {
    operationId: 'authorizationServerMetadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description: `What a discovering OAuth 2.0 client (oauth4webapi, openid-client with \`algorithm:
"oauth2"\`) needs for a refresh grant: the issuer, \`token_endpoint\`, \`jwks_uri\`, the one grant
type and no client authentication; nothing that does not exist (docs/oauth.md). Set
PASSLANE_JWT_ISSUER to the API's public URL (or PASSLANE_PUBLIC_URL); \`npm start\` uses its own.
With an issuer that has a path, RFC 8414 clients look for this document at the host's root
(\`/.well-known/oauth-authorization-server/<path>\`), which this API does not serve: use the
OpenID document there.
`,
    security: 'none',
    answers: { 200: DISCOVERY_DOCUMENT, 404: NOT_FOUND },
  },
  handle: async ({ request, services }) => discoveryAnswer(authorizationServerMetadata(await services.publicTokens(), new URL(request.url).origin)),
});
