import { HashChangedError } from '../../storage/errors.js';
import type { PasswordResetDependencies } from './dependencies.js';
import { checkNewPassword } from '../password/check-new-password.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import { ConcurrentUpdateError, InvalidOneTimeTokenError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { checkOneTimeToken, consumeOneTimeToken } from './use-one-time-token.js';

const MAX_ATTEMPTS = 3;

/**
 * POST /password/reset/confirm: `{ token, newPassword }`. The token is checked, the new password
 * checked and hashed, then the token is used (a conditional delete: of two racing confirms one
 * wins) and the new hash stored. Every session of the account ends, its run of failed logins is
 * cleared (and the waits of the source confirming), the mailbox counts as verified (the link
 * proved it), and any other reset or verification link outstanding is voided.
 */
export async function confirmPasswordReset(deps: PasswordResetDependencies, request: { token: string; newPassword: string; sourceIp?: string }): Promise<void> {
  const { newPassword } = request;
  const checked = await checkOneTimeToken(deps, 'reset', request.token);
  // The rules every new password passes (src/passwords), before any hash is spent on it.
  await checkNewPassword(deps, newPassword, { email: checked.stored.email, action: 'password_reset' });
  deps.hasher.checkPassword(newPassword);
  const newHash = await deps.hasher.hash(newPassword);
  await consumeOneTimeToken(deps, 'reset', checked);
  const { email } = checked.stored;
  for (let attempt = 1; ; attempt++) {
    const user = await deps.users.getUserByEmail(email);
    if (user === undefined) throw new InvalidOneTimeTokenError();
    try {
      const reset = deps.accountEvents.of('password.reset', user.userId, { by: 'owner' });
      await deps.users.replacePasswordHash({ email, expectedHash: user.passwordHash, newHash, reason: 'password-reset', now: deps.now() }, reset);
    } catch (error) {
      // A login's upgrade of the old hash landed in between: read again and replace that.
      if (!(error instanceof HashChangedError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConcurrentUpdateError();
      continue;
    }
    deps.audit({ type: 'auth.password_reset', userId: user.userId });
    await endOtherSessions(deps, { accountKey: checked.accountKey, userId: user.userId });
    await Promise.all([deps.loginGuard.clearAccountFailures(checked.accountKey, sourceKeyOf(request.sourceIp)), deps.mfa.clearFactorFailures(checked.accountKey)]);
    if (user.emailVerified !== true) await deps.users.markEmailVerified(email, deps.now(), deps.accountEvents.of('email.verified', user.userId, { email }));
    // After the mark: an outstanding verification link has nothing left to prove, and if the
    // mark failed (storage down) that link still works. A reset link requested since this one was used
    // goes too: no link mailed before the new password outlives it.
    await deps.oneTimeTokens.discardAll(checked.accountKey);
    return;
  }
}
