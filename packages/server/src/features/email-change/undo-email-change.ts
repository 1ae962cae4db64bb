import { AccountChangedError, InvalidOneTimeTokenError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { HashChangedError } from '../../storage/errors.js';
import { mailFailureCode } from '../recovery/mail-failure.js';
import { formatOneTimeToken, newOneTimeToken, parseOneTimeToken } from '../recovery/one-time-token.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { EmailChangeUndoDependencies } from './dependencies.js';
import { switchAddress } from './switch-address.js';

/** POST /email/change/undo's answer. */
export interface EmailChangeUndone {
  /** The old address is the account's again (false: it has another account now, and this one is disabled). */
  emailRestored: boolean;
}

/** Writes lost to a concurrent change of the password before giving up (each reads again). */
const MAX_ATTEMPTS = 3;

/**
 * POST /email/change/undo { token }: the "this wasn't me" link of the old address's notice, with
 * the old mailbox as the proof. Whoever moved the account knew the password and, where there is
 * one, a second factor: so the link puts the old address back (the same switch, reversed: the
 * old address's item created only if absent), ends every session and forgets every device, and
 * makes the password unusable until a reset, whose link goes to the old address now. If the old
 * address has another account by now (registered since the change), it cannot come back: the
 * account is then disabled, with its sessions ended and its password locked, for an operator to
 * sort out with the old mailbox's owner (README.md here: the new mailbox may be the intruder's,
 * so a reset by mail there would hand the account back to them).
 */
export async function undoEmailChange(deps: EmailChangeUndoDependencies, input: { token: string }): Promise<EmailChangeUndone> {
  const reject = (reason: 'malformed' | 'unknown' | 'expired' | 'used'): never => {
    deps.audit({ type: 'auth.one_time_token_rejected', purpose: 'email_undo', reason });
    throw new InvalidOneTimeTokenError();
  };
  const token = parseOneTimeToken(input.token);
  if (token === undefined) return reject('malformed');
  const tokenHash = secretHash(token.secret);
  const undo = await deps.emailUndos.read(token.accountKey, tokenHash);
  if (undo === undefined) return reject('unknown');
  const now = deps.now();
  if (undo.expiresAt <= epochSeconds(now)) return reject('expired');
  const account = await deps.users.getUserById(undo.userId);
  if (account === undefined) return reject('unknown');
  // Every step is idempotent and the link is used last: a retry after a failure midway finishes it.
  let emailRestored = account.email === undo.oldEmail;
  if (!emailRestored) {
    const outcome = await switchAddress(deps, { userId: undo.userId, from: account.email, to: undo.oldEmail, reason: 'email_change_undone' });
    if (outcome === 'gone') throw new AccountChangedError();
    emailRestored = outcome === 'switched';
  }
  const email = emailRestored ? undo.oldEmail : account.email;
  const accountKey = deps.fingerprint(email);
  await lockPassword(deps, email, now);
  await endOtherSessions(deps, { accountKey, userId: undo.userId, reason: 'email_change_undone' });
  await deps.oneTimeTokens.discardAll(accountKey);
  if (!emailRestored) await deps.emailSwitches.disable(email, undo.userId, now);
  if (!(await deps.emailUndos.consume(token.accountKey, tokenHash))) return reject('used');
  deps.audit({ type: 'auth.email_change_undone', userId: undo.userId, restored: emailRestored });
  if (emailRestored) await mailResetLink(deps, accountKey, email, now);
  return { emailRestored };
}

/** The password stops working (whoever moved the account knew it) until a reset; conditional on the hash read, as every change of it. */
async function lockPassword(deps: EmailChangeUndoDependencies, email: string, now: Date): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const user = await deps.users.getUserByEmail(email);
    if (user === undefined || user.passwordHash === PASSWORD_RESET_REQUIRED) return;
    try {
      await deps.users.replacePasswordHash({ email, expectedHash: user.passwordHash, newHash: PASSWORD_RESET_REQUIRED, reason: 'email-change-undo', now });
      return;
    } catch (error) {
      if (!(error instanceof HashChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/** A reset link to the restored address, outside the reset request's hourly budget: the owner just proved the mailbox. */
async function mailResetLink(deps: EmailChangeUndoDependencies, accountKey: string, email: string, now: Date): Promise<void> {
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.recovery.resetTokenSeconds;
  try {
    await deps.oneTimeTokens.put('reset', accountKey, { tokenHash: secretHash(token.secret), email, expiresAt: epochSeconds(now) + expiresIn });
    await deps.mail.passwordReset(email, formatOneTimeToken(token), expiresIn);
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'password_reset', code: mailFailureCode(error) });
  }
}
