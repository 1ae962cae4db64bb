import type { PublicJwks } from './jwks.js';

/**
 * The OpenID discovery document API Gateway's JWT authorizers read to find the keys: they fetch
 * `<issuer>/.well-known/openid-configuration` and follow `jwks_uri`. passlane is not an OpenID
 * provider; this carries only what a verifier needs.
 */
export interface OpenIdConfiguration {
  issuer: string;
  jwks_uri: string;
  id_token_signing_alg_values_supported: string[];
  subject_types_supported: ['public'];
  response_types_supported: ['token'];
}

/**
 * `jwks_uri` sits under the issuer when the issuer is a URL (as it must be for an authorizer);
 * otherwise under the origin the request came to, so a local run still answers something usable.
 */
export function openIdConfiguration(tokens: { issuer: string; jwks(): PublicJwks }, requestOrigin: string): OpenIdConfiguration {
  const base = /^https?:\/\//.test(tokens.issuer) ? tokens.issuer : requestOrigin;
  return {
    issuer: tokens.issuer,
    jwks_uri: new URL('.well-known/jwks.json', base.endsWith('/') ? base : `${base}/`).href,
    id_token_signing_alg_values_supported: [...new Set(tokens.jwks().keys.map((key) => key.alg))],
    subject_types_supported: ['public'],
    response_types_supported: ['token'],
  };
}
