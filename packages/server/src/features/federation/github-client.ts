import * as oauth from 'oauth4webapi';
import * as v from 'valibot';
import { ProviderRefusedError, type AuthorizationChecks, type FederationProvider, type ProvenIdentity } from './provider.js';
import type { GitHubProviderSettings } from './settings.js';

const GitHubUser = v.object({ id: v.pipe(v.number(), v.integer(), v.minValue(1)) });
const GitHubEmails = v.array(v.object({ email: v.string(), primary: v.boolean(), verified: v.boolean() }));

/**
 * GitHub's OAuth 2.0: no ID token, so the identity is what its API says with the access token
 * just issued: the user's numeric id (never its login, which can be renamed and taken by
 * another), and the primary email only if GitHub verified it. The code exchange is
 * oauth4webapi's, with PKCE (GitHub supports S256) and `state`.
 */
export function gitHubProvider(settings: GitHubProviderSettings, redirectUri: string): FederationProvider {
  const as: oauth.AuthorizationServer = {
    issuer: new URL(settings.authorizationUrl).origin,
    authorization_endpoint: settings.authorizationUrl,
    token_endpoint: settings.tokenUrl,
  };
  const insecure = new URL(settings.tokenUrl).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: settings.clientId };
  const clientAuth = settings.clientSecret === undefined ? oauth.None() : oauth.ClientSecretPost(settings.clientSecret);
  return {
    settings,
    redirectUri,
    formPost: false,
    async authorizationUrl({ state, codeChallenge }) {
      const url = new URL(settings.authorizationUrl);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', settings.scopes.join(' '));
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      return url;
    },
    async finish(parameters: URLSearchParams, checks: AuthorizationChecks): Promise<ProvenIdentity> {
      let callback: URLSearchParams;
      try {
        callback = oauth.validateAuthResponse(as, client, parameters, checks.state);
      } catch (error) {
        throw new ProviderRefusedError(error instanceof oauth.AuthorizationResponseError ? 'provider_error' : 'invalid_response', { cause: error });
      }
      let accessToken: string;
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, redirectUri, checks.codeVerifier, insecure);
        ({ access_token: accessToken } = await oauth.processAuthorizationCodeResponse(as, client, response));
      } catch (error) {
        throw new ProviderRefusedError('token_exchange', { cause: error });
      }
      const [user, emails] = await Promise.all([apiGet(settings.userUrl, accessToken, GitHubUser), apiGet(settings.emailsUrl, accessToken, GitHubEmails)]);
      const primary = emails.find((entry) => entry.primary);
      return {
        provider: settings.name,
        subject: String(user.id),
        ...(primary !== undefined && { email: primary.email }),
        emailVerified: primary?.verified === true,
        // GitHub says nothing of how the user signed in.
        providerMfa: false,
      };
    },
  };
}

async function apiGet<S extends v.GenericSchema>(url: string, accessToken: string, schema: S): Promise<v.InferOutput<S>> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'passlane' } });
  } catch (error) {
    throw new ProviderRefusedError('provider_unavailable', { cause: error });
  }
  if (!response.ok) throw new ProviderRefusedError('user_api');
  const parsed = v.safeParse(schema, await response.json().catch(() => undefined));
  if (!parsed.success) throw new ProviderRefusedError('user_api');
  return parsed.output;
}
