import { discoveryAnswer, DISCOVERY_DOCUMENT } from './authorization-server-metadata-route.js';
import { openIdConfiguration } from './openid-configuration.js';
import type { PublicTokenServices } from './dependencies.js';
import { NOT_FOUND } from '../../api/answers.js';
import { defineRoute } from '../../api/route.js';

/** GET /.well-known/openid-configuration: where API Gateway JWT authorizers find the keys, and OIDC clients the token endpoint. */
export const openIdConfigurationRoute = defineRoute<PublicTokenServices>({
  name: 'openidConfiguration',
  method: 'GET',
  path: '/.well-known/openid-configuration',
  // A public document: any site's client may read where the keys are (api/README.md, "CORS").
  cors: 'any-origin',
  doc: {
    operationId: 'openidConfiguration',
    summary: 'Discovery document for JWT authorizers and OIDC-discovering clients',
    description: `API Gateway JWT authorizers fetch \`<issuer>/.well-known/openid-configuration\` and follow
\`jwks_uri\`; openid-client discovers here by default. The same document as
\`/.well-known/oauth-authorization-server\`: passlane is not an OpenID provider (no authorization
endpoint, no ID tokens), so it names no response types or ID token algorithms (docs/oauth.md).
Set PASSLANE_JWT_ISSUER to the API's public HTTPS URL for that to work (or PASSLANE_PUBLIC_URL).
The request's Host header is never used to build the URLs unless PASSLANE_DISCOVERY_TRUST_HOST
is true: this document is cached publicly.
`,
    security: 'none',
    answers: { 200: DISCOVERY_DOCUMENT, 404: NOT_FOUND },
  },
  handle: async ({ request, services }) => discoveryAnswer(openIdConfiguration(await services.publicTokens(), new URL(request.url).origin)),
});
