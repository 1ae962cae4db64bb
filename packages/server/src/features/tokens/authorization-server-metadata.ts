/**
 * RFC 8414's authorization server metadata, with exactly what passlane has: its issuer, the
 * token endpoint (the refresh grant, from a public client: no client authentication), and the
 * keys. No authorization endpoint, so no `response_types_supported` (RFC 8414 calls it REQUIRED;
 * no client library here asks for it, and `[]` would announce an endpoint that does not exist),
 * no ID tokens, no scopes a client could ask for. docs/oauth.md says what conforms and what not.
 */
export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  grant_types_supported: ['refresh_token'];
  token_endpoint_auth_methods_supported: ['none'];
}

/** Where the API is reachable, as configured (PASSLANE_PUBLIC_URL, PASSLANE_DISCOVERY_TRUST_HOST). */
export interface DiscoverySettings {
  /** The API's public base URL. */
  publicUrl?: string;
  /** Build the URLs from the request's own origin (its Host header) when nothing else says where. */
  trustHostHeader?: boolean;
}

/**
 * The endpoints sit under PASSLANE_PUBLIC_URL when set, else under the issuer when the issuer is
 * a URL (as it must be for API Gateway authorizers and discovery-driven clients). The request's
 * origin (its Host header) is used only when PASSLANE_DISCOVERY_TRUST_HOST says so: this document
 * is cached publicly, so a Host chosen by a client would otherwise send every client behind that
 * cache to the client's keys and token endpoint. Undefined: discovery is not configured.
 */
export function authorizationServerMetadata(tokens: { issuer: string } & DiscoverySettings, requestOrigin: string): AuthorizationServerMetadata | undefined {
  const base = tokens.publicUrl ?? (/^https?:\/\//.test(tokens.issuer) ? tokens.issuer : tokens.trustHostHeader ? requestOrigin : undefined);
  if (base === undefined) return undefined;
  const under = (path: string) => new URL(path, base.endsWith('/') ? base : `${base}/`).href;
  return {
    issuer: tokens.issuer,
    token_endpoint: under('token'),
    jwks_uri: under('.well-known/jwks.json'),
    grant_types_supported: ['refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
  };
}
