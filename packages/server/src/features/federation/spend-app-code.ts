import type { FederationFailureReason } from '../../accounts/audit-events.js';
import { IdentityLinkRequiredError, InvalidOAuthCodeError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { FederationFlowDependencies } from './dependencies.js';
import { ProvenSignIn, readFlowItem, type PendingLink } from './flow-items.js';
import { flowSecretHash, newFlowSecret, verifierMatches } from './flow-secrets.js';
import type { ProvenIdentity } from './provider.js';
import { FEDERATION_LIMITS } from './settings.js';

/**
 * The app code, spent (one conditional delete: a replay finds nothing), unexpired, and presented
 * with the verifier whose S256 challenge the app gave at the start: a code read from a URL (a
 * log, a referrer, another app on the device) redeems nothing without it.
 */
export async function spendAppCode(deps: Pick<FederationFlowDependencies, 'flows' | 'audit' | 'now'>, code: unknown, codeVerifier: unknown): Promise<ProvenIdentity> {
  const hash = flowSecretHash(code);
  const spent = hash === undefined ? undefined : await deps.flows.spend('code', hash);
  if (spent === undefined) return refuse(deps, 'unknown_code');
  if (spent.expiresAt <= epochSeconds(deps.now())) return refuse(deps, 'expired_code');
  const signIn = readFlowItem(ProvenSignIn, spent.payload, 'federationFlow.code');
  if (!verifierMatches(codeVerifier, signIn.appCodeChallenge)) return refuse(deps, 'wrong_verifier', signIn.provider);
  const { appCodeChallenge: _challenge, ...identity } = signIn;
  return identity;
}

/**
 * An identity whose verified email has an account: a link token (10 minutes, single use) that
 * POST /identities/link redeems after that account's login. Nothing is linked now.
 */
export async function linkRequired(deps: Pick<FederationFlowDependencies, 'flows' | 'audit' | 'now'>, link: PendingLink): Promise<never> {
  const token = newFlowSecret();
  await deps.flows.put('link', token.hash, { payload: JSON.stringify(link), expiresAt: epochSeconds(deps.now()) + FEDERATION_LIMITS.pendingLinkSeconds });
  deps.audit({ type: 'auth.federated_login_failed', reason: 'link_required', provider: link.provider, userId: link.userId });
  throw new IdentityLinkRequiredError(token.secret);
}

function refuse(deps: Pick<FederationFlowDependencies, 'audit'>, reason: FederationFailureReason, provider?: string): never {
  deps.audit({ type: 'auth.federated_login_failed', reason, ...(provider !== undefined && { provider }) });
  throw new InvalidOAuthCodeError();
}
