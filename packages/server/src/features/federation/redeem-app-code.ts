import { sourceKeyOf } from '../../accounts/source-key.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { LoginTarget } from '../../storage/login-guard-store.js';
import { decideLogin } from '../login/finish-login.js';
import { reserveLoginAttempt } from '../login/login-attempt.js';
import type { LoginClient, LoginResult, LoginVerdict } from '../login/login-verdict.js';
import { knownDevice } from '../sessions/known-device.js';
import type { FederationDependencies } from './dependencies.js';
import type { ProvenIdentity } from './provider.js';
import { resolveIdentity, type IdentityAccount } from './resolve-identity.js';
import { FEDERATED_AMR } from './settings.js';
import { linkRequired, spendAppCode } from './spend-app-code.js';

export interface RedeemAppCodeRequest extends LoginClient {
  code: unknown;
  codeVerifier: unknown;
}

/**
 * POST /oauth/token: the app code (spent, with its PKCE verifier: spend-app-code.ts), the
 * identity's account (resolve-identity.ts: found, made at a first sign-in, or `link_required`),
 * then the login's shared step with the federated strategy's verdict (features/login/
 * finish-login.ts): the account's gates, the second factor unless the provider's is trusted, the
 * session, the answer. Decided once: the code is spent.
 */
export async function redeemAppCode(deps: FederationDependencies, request: RedeemAppCodeRequest): Promise<LoginResult> {
  const identity = await spendAppCode(deps, request.code, request.codeVerifier);
  const account = await resolveIdentity(deps, identity);
  if (account.kind === 'link_required') {
    return linkRequired(deps, { provider: identity.provider, subject: identity.subject, userId: account.userId, email: account.email });
  }
  return decideLogin(deps, request, () => federatedVerdict(deps, request, identity, account), 1);
}

/**
 * The federated strategy's verdict: the account as read with its counters, and this attempt
 * reserved on them as any login's (a locked account or source is refused before anything else),
 * proven by the provider. `amr` is `fed` (README.md: why), with `mfa` when the deployment trusts
 * the provider's second factor and its ID token says one was used. The password hash as read
 * stands in the verdict as any strategy's does: a password change since voids the login.
 */
async function federatedVerdict(deps: FederationDependencies, client: LoginClient, identity: ProvenIdentity, account: IdentityAccount): Promise<LoginVerdict | 'overtaken'> {
  const now = deps.now();
  const target: LoginTarget = { email: account.user.email, accountKey: account.accountKey, sourceKey: sourceKeyOf(client.sourceIp), now };
  const state = await deps.loginGuard.read(target);
  const user = state.user;
  // The account went between the resolution and this read (or another took its email): start again.
  if (user === undefined || user.userId !== account.user.userId) return 'overtaken';
  const device = knownDevice(state.sessions, user.userId, client.deviceTokens, epochSeconds(now));
  const held = await reserveLoginAttempt(deps, target, state, device);
  return {
    user,
    target,
    state,
    held,
    verifiedHash: user.passwordHash,
    amr: identity.providerMfa ? [FEDERATED_AMR, 'mfa'] : [FEDERATED_AMR],
    succeeded: [{ type: 'auth.federated_login_succeeded', userId: user.userId, provider: identity.provider }],
  };
}
