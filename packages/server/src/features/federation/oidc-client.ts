import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ProviderRefusedError, type AuthorizationChecks, type FederationProvider, type ProvenIdentity } from './provider.js';
import type { OidcProviderSettings } from './settings.js';

/** Algorithms an ID token may be signed with: asymmetric only (the keys come from the provider's JWKS); never `none`. */
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/**
 * Any OpenID Connect provider by its issuer: discovery (once per container, again after a
 * failure), the authorization code flow with PKCE S256, `state` and `nonce`, the code exchanged
 * and the ID token's claims checked by oauth4webapi (`iss`, `aud`, `azp`, `exp`, `iat`, `nonce`),
 * then its signature by jose against the provider's JWKS (`createRemoteJWKSet`: cached, fetched
 * again on an unknown `kid`, which is how a key rotation arrives). Both must pass.
 */
export function oidcProvider(settings: OidcProviderSettings, redirectUri: string): FederationProvider {
  const issuer = new URL(settings.issuer);
  // Only a loopback issuer may be http (config/federation-config.ts refuses others).
  const insecure = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: settings.clientId };
  const clientAuth = settings.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(settings.clientSecret);
  let discovery: Promise<{ as: oauth.AuthorizationServer; jwks: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  const discovered = () => {
    discovery ??= (async () => {
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure });
      const as = await oauth.processDiscoveryResponse(issuer, response);
      if (as.jwks_uri === undefined) throw new Error('the discovery document names no jwks_uri');
      return { as, jwks: createRemoteJWKSet(new URL(as.jwks_uri)) };
    })().catch((error: unknown) => {
      discovery = undefined;
      throw new ProviderRefusedError('provider_unavailable', { cause: error });
    });
    return discovery;
  };

  return {
    settings,
    redirectUri,
    formPost: settings.responseMode === 'form_post',
    async authorizationUrl({ state, nonce, codeChallenge }) {
      const { as } = await discovered();
      if (as.authorization_endpoint === undefined) throw new ProviderRefusedError('provider_unavailable');
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', settings.scopes.join(' '));
      url.searchParams.set('state', state);
      if (nonce !== undefined) url.searchParams.set('nonce', nonce);
      url.searchParams.set('code_challenge', codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      if (settings.responseMode === 'form_post') url.searchParams.set('response_mode', 'form_post');
      return url;
    },
    async finish(parameters: URLSearchParams, checks: AuthorizationChecks, now: Date): Promise<ProvenIdentity> {
      const { as, jwks } = await discovered();
      let callback: URLSearchParams;
      try {
        callback = oauth.validateAuthResponse(as, client, parameters, checks.state);
      } catch (error) {
        throw new ProviderRefusedError(error instanceof oauth.AuthorizationResponseError ? 'provider_error' : 'invalid_response', { cause: error });
      }
      let tokens: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, redirectUri, checks.codeVerifier, insecure);
        tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: checks.nonce ?? oauth.expectNoNonce, requireIdToken: true });
      } catch (error) {
        // oauth4webapi's claim checks fail as OperationProcessingError; the token endpoint's refusal as ResponseBodyError.
        throw new ProviderRefusedError(error instanceof oauth.OperationProcessingError ? 'id_token' : 'token_exchange', { cause: error });
      }
      const claims = await verifiedSignature(tokens.id_token!, jwks, { issuer: as.issuer, audience: settings.clientId, now });
      return identityOf(settings, claims);
    },
  };
}

/** The ID token's signature by the provider's keys, and its claims checked again by jose. */
async function verifiedSignature(
  idToken: string,
  jwks: ReturnType<typeof createRemoteJWKSet>,
  expected: { issuer: string; audience: string; now: Date },
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(idToken, jwks, { issuer: expected.issuer, audience: expected.audience, algorithms: SIGNING_ALGORITHMS, currentDate: expected.now });
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JWKSTimeout || (error instanceof Error && error.name === 'TypeError')) throw new ProviderRefusedError('provider_unavailable', { cause: error });
    throw new ProviderRefusedError('id_token_signature', { cause: error });
  }
}

function identityOf(settings: OidcProviderSettings, claims: JWTPayload): ProvenIdentity {
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new ProviderRefusedError('id_token');
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  const amr = Array.isArray(claims.amr) ? claims.amr : [];
  return {
    provider: settings.name,
    subject: claims.sub,
    ...(email !== undefined && { email }),
    // Only a boolean true (or the string "true" some providers send) counts.
    emailVerified: email !== undefined && (claims.email_verified === true || claims.email_verified === 'true'),
    providerMfa: settings.trustMfa && amr.includes('mfa'),
  };
}
