import { SessionsChangedError } from '../../storage/session-store.js';
import type { EmailVerificationDependencies, VerificationResendDependencies } from './dependencies.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { InvalidOneTimeTokenError, UnauthenticatedError } from '../../accounts/errors.js';
import { sendVerification } from './send-verification.js';
import { checkOneTimeToken, consumeOneTimeToken } from './use-one-time-token.js';

/** POST /email/verify `{ token }`: the account's email counts as verified from now on (new access tokens say so). */
export async function verifyEmail(deps: EmailVerificationDependencies, request: { token: string }): Promise<void> {
  const checked = await checkOneTimeToken(deps, 'verify', request.token);
  await consumeOneTimeToken(deps, 'verify', checked);
  const user = await deps.users.getUserByEmail(checked.stored.email);
  if (user === undefined || !(await deps.users.markEmailVerified(user.email, deps.now(), deps.accountEvents.of('email.verified', user.userId, { email: user.email })))) {
    throw new InvalidOneTimeTokenError();
  }
  deps.audit({ type: 'auth.email_verified', userId: user.userId });
  await markSessionsVerified(deps, checked.accountKey, user.userId);
}

/** The account's live sessions say so too, so their next refresh issues `email_verified: true`. Best effort. */
async function markSessionsVerified(deps: Pick<EmailVerificationDependencies, 'sessions'>, accountKey: string, userId: string): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const read = await deps.sessions.read(accountKey);
    const ids = [...read.sessions.values()].filter((session) => session.userId === userId && session.emailVerified !== true).map((session) => session.sessionId);
    try {
      return await deps.sessions.markEmailVerified(read, ids);
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
    }
  }
}

/** POST /email/verify/resend with an access token: a new link for the token's account, unless it is verified already. */
export async function resendVerification(deps: VerificationResendDependencies, request: { caller: AuthenticatedSession }): Promise<void> {
  // The token's session is live (its route's `authenticate`): a signed-out token cannot ask for mail.
  const { caller } = request;
  const user = await deps.users.getUserById(caller.userId);
  if (user === undefined) throw new UnauthenticatedError('the account no longer exists');
  if (user.emailVerified === true) return;
  await sendVerification(deps, { email: user.email, accountKey: deps.fingerprint(user.email), userId: user.userId });
}
