import { AccountDisabledError, EmailNotVerifiedError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import type { AccountEventDependencies } from '../../events/account-events.js';
import type { GiveBack, LoginGuardStore } from '../../storage/login-guard-store.js';
import { hasActiveFactor } from '../../storage/mfa-store.js';
import type { VerificationMailDependencies } from '../recovery/dependencies.js';
import { sendVerification } from '../recovery/send-verification.js';
import type { StartSessionDependencies } from '../sessions/dependencies.js';
import type { LoginDependencies } from './dependencies.js';
import { releaseLoginAttempt, type LoginAttemptDependencies } from './login-attempt.js';
import { answerLogin, startLoginSession } from './login-session.js';
import { PASSWORD_AMR } from '../sessions/start-session.js';
import { tokenHookClaims } from '../sessions/token-hook-claims.js';
import type { LoginClient, LoginResult, LoginVerdict } from './login-verdict.js';
import { mfaChallenge, type MfaChallengeDependencies } from './mfa-challenge.js';

/** What the shared step takes, whatever proved the account: the counters, the gates' mail, the MFA token, the session. */
export type FinishLoginDependencies = LoginAttemptDependencies &
  StartSessionDependencies &
  VerificationMailDependencies &
  MfaChallengeDependencies &
  AccountEventDependencies &
  Pick<LoginDependencies, 'tokens' | 'rateLimits' | 'now'> & {
    loginGuard: Pick<LoginGuardStore, 'read'>;
  };

/**
 * Proves and finishes a login, deciding again (at most `decisions` times) while a password
 * change overtakes it: each decision reads afresh, so no token is issued on a stale read. A
 * strategy whose proof is spent once checked (an MFA token, a passkey's challenge) decides once.
 */
export async function decideLogin(
  deps: FinishLoginDependencies,
  client: LoginClient,
  prove: () => Promise<LoginVerdict | 'overtaken'>,
  decisions: number,
): Promise<LoginResult> {
  for (let decision = 1; decision <= decisions; decision++) {
    const verdict = await prove();
    const result = verdict === 'overtaken' ? verdict : await finishLogin(deps, client, verdict);
    if (result !== 'overtaken') return result;
  }
  throw new TemporarilyUnavailableError(1);
}

/**
 * The shared step after any strategy's verdict, in this order: the account's gates (disabled,
 * then the verified email where required: only after the secret proved right, so they tell a
 * guesser nothing), the password's rehash, the second factor where the proof carries none (an
 * MFA token instead of a session), the session (with its `session.started` event where sign-in
 * events are recorded), and the give-back of the attempt the strategy
 * reserved (login-attempt.ts). 'overtaken': a password change since the read voided the proof;
 * its attempt is given back as a right secret's.
 */
export async function finishLogin(deps: FinishLoginDependencies, client: LoginClient, verdict: LoginVerdict): Promise<LoginResult | 'overtaken'> {
  const { user, target, state } = verdict;
  const giveBack = (as: GiveBack) => releaseLoginAttempt(deps, target, verdict.held, as);
  if (user.disabledAt !== undefined) {
    deps.audit({ type: 'auth.login_disabled', userId: user.userId });
    await giveBack('right_secret');
    throw new AccountDisabledError();
  }
  if (deps.recovery.requireVerifiedEmail && user.emailVerified !== true) {
    deps.audit({ type: 'auth.login_unverified', userId: user.userId });
    await giveBack('right_secret');
    await sendVerification(deps, { email: user.email, accountKey: target.accountKey, userId: user.userId });
    throw new EmailNotVerifiedError();
  }
  const upgrade = await verdict.rehash?.();
  if (upgrade === 'overtaken') {
    await giveBack('right_secret');
    return 'overtaken';
  }
  const verifiedHash = typeof upgrade === 'object' ? upgrade.newHash : verdict.verifiedHash;
  if (verdict.amr?.includes('mfa') !== true && hasActiveFactor(state.factors)) {
    await giveBack('second_factor_due');
    return mfaChallenge(deps, { userId: user.userId, email: user.email, accountKey: target.accountKey, verifiedHash }, state.factors!);
  }
  // The token hook before the session: a refusal leaves none behind (features/sessions/token-hook-claims.ts).
  const claims = await tokenHookClaims(deps, { accountId: user.userId, email: user.email, amr: verdict.amr ?? PASSWORD_AMR, trigger: 'login' }).catch(async (error: unknown) => {
    await giveBack('right_secret');
    throw error;
  });
  // Its sign-in event, where the deployment records them, in the session's own write: every way in passes here, a refresh does not.
  const { clientId } = deps.tokens;
  const started = ({ sessionId, amr }: { sessionId: string; amr: readonly string[] }) =>
    deps.accountEvents.of('session.started', user.userId, { sessionId, amr: [...amr], ...(clientId !== undefined && { clientId }) });
  const session = await startLoginSession(deps, client, target, state, user, verifiedHash, verdict.amr, started);
  if (session === 'overtaken') {
    await giveBack('right_secret');
    return 'overtaken';
  }
  // The email's failures end; the source's attempt becomes one of its good logins.
  await giveBack('success');
  for (const event of verdict.succeeded ?? []) deps.audit(event);
  deps.audit({ type: 'auth.login_succeeded', userId: user.userId });
  await verdict.afterSuccess?.();
  return { kind: 'session', ...(await answerLogin(deps, user, session, claims)) };
}
