import { HashChangedError } from '../storage/errors.js';
import { parsePublicSessionId } from '../sessions/refresh-token.js';
import { InvalidTokenError } from '../tokens/errors.js';
import type { AccountDependencies } from './dependencies.js';
import { checkNewPassword } from './check-new-password.js';
import { ConcurrentUpdateError, InvalidCredentialsError, UnauthenticatedError } from './errors.js';
import { enforceRateLimits } from './enforce-rate-limits.js';
import { endOtherSessions } from './end-sessions.js';
import { verifyStoredHash } from './login.js';
import { translateErrors } from './translate-errors.js';
import { requireObject, requireString } from './validate-input.js';

export interface ChangePasswordRequest {
  /** The Bearer token from the Authorization header, if any. */
  accessToken: string | undefined;
  body: unknown;
  sourceIp?: string;
}

/**
 * Changes the password of the token's account after checking the current one. The write is
 * conditional on the hash just verified, so a concurrent change is never lost. Tokens issued
 * before the last password change are refused. Every other session of the account ends.
 */
export async function changePassword(deps: AccountDependencies, request: ChangePasswordRequest): Promise<void> {
  if (!request.accessToken) throw new UnauthenticatedError('a Bearer access token is required');
  const token = await deps.tokens.verify(request.accessToken).catch((cause: unknown) => {
    // Only a verdict on the token is a 401; anything else (a bug, a broken key) stays a 500.
    if (cause instanceof InvalidTokenError) throw new UnauthenticatedError('the access token is invalid or expired', { cause });
    throw cause;
  });
  const body = requireObject(request.body);
  const currentPassword = requireString(body, 'currentPassword');
  const newPassword = requireString(body, 'newPassword');

  return translateErrors(async () => {
    let newHash: string | undefined;
    // A login-time upgrade of the same password may land between our read and our write; then
    // read again and re-check, rather than fail the user's change. A real concurrent change
    // makes the current password wrong on the re-check.
    for (let attempt = 1; ; attempt++) {
      const user = await readAuthorisedUser(deps, token, request.sourceIp);
      const current = await verifyStoredHash(deps, user, currentPassword);
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
          now: deps.now?.(),
        });
        deps.audit({ type: 'auth.password_changed', userId: user.userId });
        const accountKey = deps.fingerprint(user.email);
        // A new password ends every other session (whoever knew the old one is signed out) and
        // the account's run of failed logins (and so its lock). The session that changed it goes on.
        const own = parsePublicSessionId(token.sessionId);
        await endOtherSessions(deps, { accountKey, userId: user.userId, ...(own?.accountKey === accountKey && { keep: own.sessionId }) });
        await deps.loginGuard.clearAccountFailures(accountKey);
        return;
      } catch (error) {
        if (!(error instanceof HashChangedError)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new ConcurrentUpdateError();
      }
    }
  });
}

const MAX_ATTEMPTS = 3;

/** The token's account, rate-limited like a login, refusing tokens older than the last change. */
async function readAuthorisedUser(deps: AccountDependencies, token: { userId: string; issuedAt: Date; sessionId?: string }, sourceIp?: string) {
  const user = await deps.users.getUserById(token.userId);
  if (!user) throw new UnauthenticatedError('the account no longer exists');
  // A per-account budget, so a stolen token can't be used to guess the password.
  const fingerprint = deps.fingerprint(user.email);
  await enforceRateLimits(deps, { action: 'password', accountKey: fingerprint, emailFingerprint: fingerprint, sourceIp });
  // JWT iat has whole seconds, so a token from the very second of the change is accepted.
  if (user.passwordChangedAt && token.issuedAt.getTime() < Math.floor(user.passwordChangedAt.getTime() / 1000) * 1000) {
    deps.audit({ type: 'auth.password_change_failed', userId: user.userId, reason: 'token_predates_password_change' });
    throw new UnauthenticatedError('the access token predates the last password change');
  }
  return user;
}
