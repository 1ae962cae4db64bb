import { authorizationServerMetadata, type AuthorizationServerMetadata, type DiscoverySettings } from './authorization-server-metadata.js';

/**
 * `/.well-known/openid-configuration`: what API Gateway's JWT authorizers read to find the keys
 * (`issuer`, `jwks_uri`), and where OIDC-discovering clients (openid-client's default) find the
 * token endpoint. passlane is not an OpenID provider (no authorization endpoint, no ID tokens,
 * no userinfo), so the document says only what is true: RFC 8414's fields, whose names OpenID
 * Connect Discovery shares, and nothing about ID tokens or response types.
 */
export type OpenIdConfiguration = AuthorizationServerMetadata;

export function openIdConfiguration(tokens: { issuer: string } & DiscoverySettings, requestOrigin: string): OpenIdConfiguration | undefined {
  return authorizationServerMetadata(tokens, requestOrigin);
}
