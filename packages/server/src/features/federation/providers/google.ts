import type { OidcTuning } from '../oidc-client.js';

/**
 * Google: an OpenID Connect provider by its discovery document, with one quirk. Its ID tokens'
 * `iss` is `https://accounts.google.com` or, as Google documents, the bare `accounts.google.com`:
 * both are Google, and the signature (Google's keys) and audience (our client id) still decide.
 * `email_verified` is a boolean, read as for any provider.
 */
export function googleTuning(): OidcTuning {
  return {
    tokenIssuer: (claims, discovered) => (claims.iss === 'accounts.google.com' && discovered === 'https://accounts.google.com' ? 'accounts.google.com' : discovered),
  };
}
