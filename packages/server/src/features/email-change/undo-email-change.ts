import { AccountChangedError, InvalidOneTimeTokenError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { lockPasswordUntilReset, mailResetLinkNow } from '../recovery/lock-password-until-reset.js';
import { parseOneTimeToken } from '../recovery/one-time-token.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { EmailChangeUndoDependencies } from './dependencies.js';
import { switchAddress } from './switch-address.js';

/** POST /email/change/undo's answer. */
export interface EmailChangeUndone {
  /** The old address is the account's again (false: it has another account now, and this one is disabled). */
  emailRestored: boolean;
}

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
  await lockPasswordUntilReset(deps, { email, userId: undo.userId, reason: 'email-change-undo', now });
  await endOtherSessions(deps, { accountKey, userId: undo.userId, reason: 'email_change_undone' });
  await deps.oneTimeTokens.discardAll(accountKey);
  if (!emailRestored) await deps.emailSwitches.disable(email, undo.userId, now, deps.accountEvents.of('account.disabled', undo.userId, { by: 'undo_link' }));
  if (!(await deps.emailUndos.consume(token.accountKey, tokenHash))) return reject('used');
  deps.audit({ type: 'auth.email_change_undone', userId: undo.userId, restored: emailRestored });
  if (emailRestored) await mailResetLinkNow(deps, { accountKey, email, now });
  return { emailRestored };
}
