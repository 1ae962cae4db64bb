import type { FederationFailureReason } from '../../accounts/audit-events.js';
import { InvalidOAuthStateError, ProviderNotFoundError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { FederationFlowDependencies } from './dependencies.js';
import { flowSecretHash, newFlowSecret, stateCookieName } from './flow-secrets.js';
import { PendingAuthorization, readFlowItem, type ProvenSignIn } from './flow-items.js';
import { ProviderRefusedError } from './provider.js';
import { withOutcome } from './redirect-target.js';
import { FEDERATION_LIMITS } from './settings.js';

export interface CallbackRequest {
  provider: string;
  /** The provider's answer: the query, or the form of a `form_post`. */
  parameters: URLSearchParams;
  /** The cookies the browser sent, by name (only the sign-in's is read). */
  cookie: (name: string) => string | undefined;
}

export interface FinishedCallback {
  /** The app's page, with `code` or `error`. */
  location: string;
  /** The sign-in's cookie, spent either way: cleared with the SameSite it was set with (a form post's is `None`). */
  cookie: { name: string; sameSite: 'Lax' | 'None' };
}

/**
 * The provider's callback. The `state` is spent first (one conditional delete: a replay finds
 * nothing), and must be this provider's and this browser's (the cookie's secret against the hash
 * kept at the start); otherwise InvalidOAuthStateError, and nothing is redirected anywhere. Then
 * the provider's answer: its error, the code exchanged with our PKCE verifier, the ID token
 * checked (oidc-client.ts) or the user API read (github-client.ts). A refusal from there on
 * returns to the app with `error=provider_refused` (or `temporarily_unavailable`); a proof
 * returns with a single-use app code, good for 60 seconds, which only the app's PKCE verifier
 * redeems (redeem-app-code.ts). No token travels in a URL.
 */
export async function finishCallback(deps: FederationFlowDependencies, request: CallbackRequest): Promise<FinishedCallback> {
  const provider = deps.providers.get(request.provider);
  if (provider === undefined) throw new ProviderNotFoundError();
  const stateHash = flowSecretHash(request.parameters.get('state'));
  if (stateHash === undefined) return refuseState(deps, request.provider, 'unknown_state');
  const cookieName = stateCookieName(stateHash);
  const cookie = { name: cookieName, sameSite: provider.formPost ? ('None' as const) : ('Lax' as const) };
  const spent = await deps.flows.spend('state', stateHash);
  if (spent === undefined) return refuseState(deps, request.provider, 'unknown_state');
  const now = deps.now();
  if (spent.expiresAt <= epochSeconds(now)) return refuseState(deps, request.provider, 'expired_state');
  const pending = readFlowItem(PendingAuthorization, spent.payload, 'federationFlow.state');
  if (pending.provider !== provider.settings.name) return refuseState(deps, request.provider, 'unknown_state');
  if (flowSecretHash(request.cookie(cookieName)) !== pending.browserHash) return refuseState(deps, request.provider, 'other_browser');

  let proven;
  try {
    proven = await provider.finish(
      request.parameters,
      { state: request.parameters.get('state')!, codeVerifier: pending.codeVerifier, ...(pending.nonce !== undefined && { nonce: pending.nonce }) },
      now,
    );
  } catch (error) {
    if (!(error instanceof ProviderRefusedError)) throw error;
    deps.audit({ type: 'auth.federated_login_failed', reason: error.reason, provider: provider.settings.name });
    const answer = error.reason === 'provider_unavailable' ? 'temporarily_unavailable' : 'provider_refused';
    return { location: withOutcome(pending.redirectTo, { error: answer }), cookie };
  }
  const signIn: ProvenSignIn = {
    provider: proven.provider,
    subject: proven.subject,
    ...(proven.email !== undefined && { email: proven.email }),
    emailVerified: proven.emailVerified,
    providerMfa: proven.providerMfa,
    appCodeChallenge: pending.appCodeChallenge,
  };
  const code = newFlowSecret();
  await deps.flows.put('code', code.hash, { payload: JSON.stringify(signIn), expiresAt: epochSeconds(now) + FEDERATION_LIMITS.appCodeSeconds });
  return { location: withOutcome(pending.redirectTo, { code: code.secret }), cookie };
}

function refuseState(deps: FederationFlowDependencies, provider: string, reason: FederationFailureReason): never {
  deps.audit({ type: 'auth.federated_login_failed', reason, provider });
  throw new InvalidOAuthStateError();
}
