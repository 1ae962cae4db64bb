import type { Audit } from '../../accounts/audit-events.js';
import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import type { AccountMail } from '../../mail/account-mail.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { AccountStore, PasswordHashChangeReason } from '../../storage/account-store.js';
import { HashChangedError } from '../../storage/errors.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import { secretHash } from '../sessions/refresh-token.js';
import { mailFailureCode } from './mail-failure.js';
import { formatOneTimeToken, newOneTimeToken } from './one-time-token.js';
import type { RecoveryConfig } from './settings.js';
import type { AccountEvents } from '../../events/account-events.js';

/** Writes lost to a concurrent change of the password before giving up (each reads again). */
const MAX_ATTEMPTS = 3;

/**
 * The password stops working until a reset (a "this wasn't me" link: whoever acted knew it);
 * conditional on the hash read, as every change of it, and recorded as `password.changed` by the
 * link. Another account at the address (this one deleted, the address registered again) is not
 * this one's to lock.
 */
export async function lockPasswordUntilReset(
  deps: { users: Pick<AccountStore, 'getUserByEmail' | 'replacePasswordHash'>; accountEvents: AccountEvents },
  input: { email: string; userId: string; reason: Extract<PasswordHashChangeReason, 'factor-undo' | 'email-change-undo'>; now: Date },
): Promise<void> {
  const { email, userId, reason, now } = input;
  const locked = deps.accountEvents.of('password.changed', userId, { by: 'undo_link' });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const user = await deps.users.getUserByEmail(email);
    if (user === undefined || user.userId !== userId || user.passwordHash === PASSWORD_RESET_REQUIRED) return;
    try {
      await deps.users.replacePasswordHash({ email, expectedHash: user.passwordHash, newHash: PASSWORD_RESET_REQUIRED, reason, now }, locked);
      return;
    } catch (error) {
      // A login's upgrade of the hash landed in between: read again and lock that.
      if (!(error instanceof HashChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/**
 * A reset link, as POST /password/reset makes one but outside its hourly budget: the owner just
 * proved the mailbox. It replaces the account's outstanding reset link (one per account), so none
 * mailed before outlives this. Best effort (a failure is audited; the sign-in page asks for another).
 */
export async function mailResetLinkNow(
  deps: {
    oneTimeTokens: Pick<OneTimeTokenStore, 'put'>;
    mail: Pick<AccountMail, 'passwordReset'>;
    recovery: Pick<RecoveryConfig, 'resetTokenSeconds'>;
    audit: Audit;
  },
  input: { accountKey: string; email: string; now: Date },
): Promise<void> {
  const { accountKey, email, now } = input;
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.recovery.resetTokenSeconds;
  try {
    await deps.oneTimeTokens.put('reset', accountKey, { tokenHash: secretHash(token.secret), email, expiresAt: epochSeconds(now) + expiresIn });
    await deps.mail.passwordReset(email, formatOneTimeToken(token), expiresIn);
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'password_reset', code: mailFailureCode(error) });
  }
}
