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

/** Where the published keys live, as configured (PASSLANE_PUBLIC_URL, PASSLANE_DISCOVERY_TRUST_HOST). */
export interface DiscoverySettings {
  /** The API's public base URL. */
  publicUrl?: string;
  /** Build `jwks_uri` from the request's own origin (its Host header) when nothing else says where. */
  trustHostHeader?: boolean;
}

/**
 * `jwks_uri` sits under PASSLANE_PUBLIC_URL when set, else under the issuer when the issuer is a
 * URL (as it must be for an API Gateway authorizer). The request's origin (its Host header) is
 * used only when PASSLANE_DISCOVERY_TRUST_HOST says so (`npm start` does, on loopback): this
 * document is cached publicly, so a Host chosen by a client would otherwise send every verifier
 * behind that cache to the client's keys. Undefined: discovery is not configured.
 */
export function openIdConfiguration(
  tokens: { issuer: string; jwks(): PublicJwks } & DiscoverySettings,
  requestOrigin: string,
): OpenIdConfiguration | undefined {
  const base = tokens.publicUrl ?? (/^https?:\/\//.test(tokens.issuer) ? tokens.issuer : tokens.trustHostHeader ? requestOrigin : undefined);
  if (base === undefined) return undefined;
  return {
    issuer: tokens.issuer,
    jwks_uri: new URL('.well-known/jwks.json', base.endsWith('/') ? base : `${base}/`).href,
    id_token_signing_alg_values_supported: [...new Set(tokens.jwks().keys.map((key) => key.alg))],
    subject_types_supported: ['public'],
    response_types_supported: ['token'],
  };
}
