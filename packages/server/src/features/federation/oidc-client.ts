import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ProviderRefusedError, type AuthorizationChecks, type FederationProvider, type ProvenIdentity } from './provider.js';
import type { OidcProviderSettings } from './settings.js';

/** Algorithms an ID token may be signed with: asymmetric only (the keys come from the provider's JWKS); never `none`. */
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/**
 * What a preset (providers/) changes of the generic client, each part optional: the rest is the
 * same code path for every provider.
 */
export interface OidcTuning {
  /**
   * The `issuer` the discovery document names when it is not the URL it is fetched from
   * (Microsoft's multi-tenant document names the template `.../{tenantid}/v2.0`).
   */
  discoveryIssuer?: string;
  /**
   * The `iss` this ID token must carry, from its claims (not yet trusted: every check, the
   * signature's included, then runs against the answer); throws ProviderRefusedError to refuse.
   * By default the discovery's issuer.
   */
  tokenIssuer?: (claims: JWTPayload, discoveredIssuer: string) => string;
  /** The token endpoint's client authentication, made for each exchange (Apple's secret is a JWT that expires). */
  clientAuth?: (now: Date) => Promise<oauth.ClientAuth>;
  /** Whether the email counts as verified; by default `email_verified` true (or "true"). */
  emailVerified?: (claims: JWTPayload) => boolean;
}

/**
 * Any OpenID Connect provider by its issuer: discovery (once per container, again after a
 * failure), the authorization code flow with PKCE S256, `state` and `nonce`, the code exchanged
 * and the ID token's claims checked by oauth4webapi (`iss`, `aud`, `azp`, `exp`, `iat`, `nonce`),
 * then its signature by jose against the provider's JWKS (`createRemoteJWKSet`: cached, fetched
 * again on an unknown `kid`, which is how a key rotation arrives). Both must pass.
 */
export function oidcProvider(settings: OidcProviderSettings, redirectUri: string, tuning: OidcTuning = {}): FederationProvider {
  const issuer = new URL(settings.issuer);
  // Only a loopback issuer may be http (config/federation-config.ts refuses others).
  const insecure = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: settings.clientId };
  const fixedAuth = settings.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(settings.clientSecret);
  const clientAuth = tuning.clientAuth ?? (() => Promise.resolve(fixedAuth));
  let discovery: Promise<{ as: oauth.AuthorizationServer; jwks: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  const discovered = () => {
    discovery ??= (async () => {
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure });
      const as = await oauth.processDiscoveryResponse(tuning.discoveryIssuer === undefined ? issuer : new URL(tuning.discoveryIssuer), response);
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
      let expected = as;
      // Outside the try: a secret that cannot be made is the deployment's fault, not the provider's.
      const auth = await clientAuth(now);
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, auth, callback, redirectUri, checks.codeVerifier, insecure);
        if (tuning.tokenIssuer !== undefined) expected = { ...as, issuer: await tokenIssuerOf(response.clone(), as.issuer, tuning.tokenIssuer) };
        tokens = await oauth.processAuthorizationCodeResponse(expected, client, response, { expectedNonce: checks.nonce ?? oauth.expectNoNonce, requireIdToken: true });
      } catch (error) {
        if (error instanceof ProviderRefusedError) throw error;
        // oauth4webapi's claim checks fail as OperationProcessingError; the token endpoint's refusal as ResponseBodyError.
        throw new ProviderRefusedError(error instanceof oauth.OperationProcessingError ? 'id_token' : 'token_exchange', { cause: error });
      }
      const claims = await verifiedSignature(tokens.id_token!, jwks, { issuer: expected.issuer, audience: settings.clientId, now });
      return identityOf(settings, claims, tuning.emailVerified);
    },
  };
}

/** The issuer a tuning expects of the answer's ID token; an answer without one is left to oauth4webapi to refuse. */
async function tokenIssuerOf(response: Response, discovered: string, tokenIssuer: NonNullable<OidcTuning['tokenIssuer']>): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as { id_token?: unknown } | undefined;
  if (typeof body?.id_token !== 'string') return discovered;
  let claims: JWTPayload;
  try {
    claims = decodeJwt(body.id_token);
  } catch (error) {
    throw new ProviderRefusedError('id_token', { cause: error });
  }
  return tokenIssuer(claims, discovered);
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

function identityOf(settings: OidcProviderSettings, claims: JWTPayload, emailVerified?: OidcTuning['emailVerified']): ProvenIdentity {
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new ProviderRefusedError('id_token');
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  const amr = Array.isArray(claims.amr) ? claims.amr : [];
  return {
    provider: settings.name,
    subject: claims.sub,
    ...(email !== undefined && { email }),
    // Only a boolean true (or the string "true" some providers send) counts.
    emailVerified: email !== undefined && (emailVerified === undefined ? claims.email_verified === true || claims.email_verified === 'true' : emailVerified(claims)),
    providerMfa: settings.trustMfa && amr.includes('mfa'),
  };
}
