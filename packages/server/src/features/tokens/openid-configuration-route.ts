import { openIdConfiguration } from './openid-configuration.js';
import type { PublicTokenServices } from './dependencies.js';
import { PUBLIC_CACHE } from './jwks-route.js';
import { OpenIdConfiguration } from './token-schemas.js';
import { NOT_FOUND } from '../../api/answers.js';
import { HttpError } from '../../api/http-error.js';
import { defineRoute } from '../../api/route.js';
import { jsonResponse } from '../../api/responses.js';

/** GET /.well-known/openid-configuration: where API Gateway JWT authorizers find the keys. */
export const openIdConfigurationRoute = defineRoute<PublicTokenServices>({
  name: 'openidConfiguration',
  method: 'GET',
  path: '/.well-known/openid-configuration',
  // A public document: any site's client may read where the keys are (api/README.md, "CORS").
  cors: 'any-origin',
  doc: {
    operationId: 'openidConfiguration',
    summary: 'Discovery document pointing JWT authorizers at the JWKS',
    description: `API Gateway JWT authorizers fetch \`<issuer>/.well-known/openid-configuration\` and follow
\`jwks_uri\`. Set PASSLANE_JWT_ISSUER to the API's public HTTPS URL for that to work (or
PASSLANE_PUBLIC_URL). The request's Host header is never used to build \`jwks_uri\` unless
PASSLANE_DISCOVERY_TRUST_HOST is true: this document is cached publicly.
`,
    security: 'none',
    answers: {
      200: {
        description: 'The issuer, where its keys are, and their algorithms.',
        headers: { 'Cache-Control': { required: true, schema: { type: 'string' } } },
        body: { name: 'OpenIdConfiguration', schema: OpenIdConfiguration },
      },
      404: NOT_FOUND,
    },
  },
  handle: async ({ request, services }) => {
    const document = openIdConfiguration(await services.publicTokens(), new URL(request.url).origin);
    if (document === undefined) {
      throw new HttpError('not_found', 'discovery is not configured: set PASSLANE_PUBLIC_URL, or PASSLANE_JWT_ISSUER to the API URL');
    }
    return jsonResponse(200, document, PUBLIC_CACHE);
  },
});
