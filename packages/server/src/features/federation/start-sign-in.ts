import * as oauth from 'oauth4webapi';
import { InvalidRequestError, ProviderNotFoundError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { FederationFlowDependencies } from './dependencies.js';
import { newFlowSecret, S256_CHALLENGE, stateCookieName } from './flow-secrets.js';
import type { PendingAuthorization } from './flow-items.js';
import { ProviderRefusedError } from './provider.js';
import { allowedRedirect } from './redirect-target.js';
import { FEDERATION_LIMITS } from './settings.js';

export interface StartSignInRequest {
  provider: string;
  /** The app's page to come back to (its origin on the provider's allow-list). */
  redirectTo: unknown;
  /** The app's PKCE S256 challenge: only the holder of its verifier redeems the app code. */
  codeChallenge: unknown;
  sourceIp?: string;
}

export interface StartedSignIn {
  /** The provider's authorization URL, for the browser. */
  location: string;
  /** The cookie binding the sign-in to this browser: its name, its secret, how long, and its SameSite. */
  cookie: { name: string; value: string; maxAgeSeconds: number; sameSite: 'Lax' | 'None' };
}

/**
 * GET /oauth/{provider}/start: the authorization request. `redirect_to` is checked against the
 * provider's allowed origins first; then `state`, our PKCE verifier and (OIDC) `nonce` are made
 * and kept server-side for 10 minutes, with the hash of a browser secret that goes into a
 * `__Host-` cookie: the callback must present both (finish-callback.ts).
 */
export async function startSignIn(deps: FederationFlowDependencies, request: StartSignInRequest): Promise<StartedSignIn> {
  const provider = deps.providers.get(request.provider);
  if (provider === undefined) throw new ProviderNotFoundError();
  const redirectTo = allowedRedirect(request.redirectTo, provider.settings.redirectOrigins);
  if (typeof request.codeChallenge !== 'string' || !S256_CHALLENGE.test(request.codeChallenge)) {
    throw new InvalidRequestError('code_challenge must be the S256 challenge of the app\'s code_verifier (RFC 7636)', 'code_challenge');
  }
  // Unauthenticated and it writes an item: counted per source, as registration and passkey options are.
  await enforceRateLimits(deps, { action: 'oauth_start', sourceIp: request.sourceIp });
  const state = newFlowSecret();
  const browser = newFlowSecret();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const nonce = provider.settings.kind === 'oidc' ? oauth.generateRandomNonce() : undefined;
  let location: URL;
  try {
    location = await provider.authorizationUrl({ state: state.secret, ...(nonce !== undefined && { nonce }), codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) });
  } catch (error) {
    if (error instanceof ProviderRefusedError) throw new TemporarilyUnavailableError(5, { cause: error });
    throw error;
  }
  const pending: PendingAuthorization = {
    provider: provider.settings.name,
    browserHash: browser.hash,
    codeVerifier,
    ...(nonce !== undefined && { nonce }),
    redirectTo: redirectTo.href,
    appCodeChallenge: request.codeChallenge,
  };
  await deps.flows.put('state', state.hash, { payload: JSON.stringify(pending), expiresAt: epochSeconds(deps.now()) + FEDERATION_LIMITS.stateSeconds });
  return {
    location: location.href,
    cookie: { name: stateCookieName(state.hash), value: browser.secret, maxAgeSeconds: FEDERATION_LIMITS.stateSeconds, sameSite: provider.formPost ? 'None' : 'Lax' },
  };
}
