import { PasslaneError } from 'passlane/common';
import type { UserRecord } from '../../storage/account-store.js';
import { HashChangedError } from '../../storage/errors.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { PasswordChangeDependencies } from './dependencies.js';
import { checkNewPassword } from './check-new-password.js';
import { ConcurrentUpdateError, InvalidCredentialsError, UnauthenticatedError } from '../../accounts/errors.js';
import { enforceRateLimits } from '../../accounts/enforce-rate-limits.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';

export interface ChangePasswordRequest {
  /**
   * Who asks: the session of the Bearer token, still live, which POST /password's
   * `authenticate: 'session'` checks before the body's fields.
   */
  caller: AuthenticatedSession;
  currentPassword: string;
  newPassword: string;
  sourceIp?: string;
}

/**
 * Changes the password of the caller's account after checking the current one. The caller's
 * session must be live (a signed-out token changes nothing). The write is conditional on the hash
 * just verified, so a concurrent change is never lost. Every other session of the account ends,
 * and its outstanding reset and verification links are voided.
 */
export async function changePassword(deps: PasswordChangeDependencies, request: ChangePasswordRequest): Promise<void> {
  const { caller, currentPassword, newPassword } = request;
  let newHash: string | undefined;
  // A login-time upgrade of the same password may land between our read and our write; then
  // read again and re-check, rather than fail the user's change. A real concurrent change
  // makes the current password wrong on the re-check.
  for (let attempt = 1; ; attempt++) {
    const user = await readAuthorisedUser(deps, caller.userId, request.sourceIp);
    // A factor undone from the mailbox locked the password: no current one is right until a reset.
    const current = user.passwordHash === PASSWORD_RESET_REQUIRED ? { ok: false } : await verifyStoredHash(deps, user, currentPassword);
    if (!current.ok) {
      deps.audit({ type: 'auth.password_change_failed', userId: user.userId, reason: 'wrong_password' });
      throw new InvalidCredentialsError();
    }
    // After the current password verified: only its holder learns what the rules think of the new one.
    if (newHash === undefined) await checkNewPassword(deps, newPassword, { email: user.email, action: 'password_change', userId: user.userId });
    newHash ??= await deps.hasher.hash(newPassword);
    try {
      await deps.users.replacePasswordHash({
        email: user.email,
        expectedHash: user.passwordHash,
        newHash,
        reason: 'password-change',
        now: deps.now(),
      }, deps.accountEvents.of('password.changed', user.userId, { by: 'owner' }));
      deps.audit({ type: 'auth.password_changed', userId: user.userId });
      const accountKey = deps.fingerprint(user.email);
      // A new password ends every other session (whoever knew the old one is signed out), voids
      // any reset or verification link mailed before (whoever reads the mailbox cannot undo
      // the change), and ends the account's run of failed logins (and so its lock). The
      // session that changed it goes on.
      await endOtherSessions(deps, { accountKey, userId: user.userId, ...(caller.accountKey === accountKey && { keep: caller.session.sessionId }) });
      await Promise.all([deps.loginGuard.clearAccountFailures(accountKey), deps.oneTimeTokens.discardAll(accountKey)]);
      return;
    } catch (error) {
      if (!(error instanceof HashChangedError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConcurrentUpdateError();
    }
  }
}

const MAX_ATTEMPTS = 3;

/**
 * The token's account, rate-limited like a login. No check of the token's `iat` against the last
 * change: the live session already refuses every token that check refused but one kind. A change
 * ends every other session and a reset all of them, so a token from before either belongs to an
 * ended session; what is left is an older token of the session that made the change, which the
 * change chose to keep (its refresh token mints new ones anyway), and which still needs the new
 * password here.
 */
async function readAuthorisedUser(deps: PasswordChangeDependencies, userId: string, sourceIp?: string) {
  const user = await deps.users.getUserById(userId);
  if (!user) throw new UnauthenticatedError('the account no longer exists');
  // A per-account budget, so a stolen token can't be used to guess the password.
  const fingerprint = deps.fingerprint(user.email);
  await enforceRateLimits(deps, { action: 'password', accountKey: fingerprint, emailFingerprint: fingerprint, sourceIp });
  return user;
}

/** A stored value the hasher refuses is a data problem to log, not a wrong password. */
export async function verifyStoredHash(deps: Pick<PasswordChangeDependencies, 'hasher' | 'audit'>, user: UserRecord, password: string) {
  try {
    return await deps.hasher.verify(user.passwordHash, password);
  } catch (error) {
    if (error instanceof PasslaneError && error.code.startsWith('ERR_HASH_')) {
      deps.audit({ type: 'auth.stored_hash_rejected', userId: user.userId, code: error.code });
    }
    throw error;
  }
}
