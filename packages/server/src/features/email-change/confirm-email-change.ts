import { AccountChangedError, EmailTakenError, InvalidOneTimeTokenError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { mailFailureCode } from '../recovery/mail-failure.js';
import { formatOneTimeToken, newOneTimeToken } from '../recovery/one-time-token.js';
import { checkOneTimeToken, consumeOneTimeToken } from '../recovery/use-one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { EmailChangeConfirmDependencies } from './dependencies.js';
import { EMAIL_CHANGE_LIMITS } from './settings.js';
import { switchAddress } from './switch-address.js';

/**
 * POST /email/change/confirm { token }: the link mailed to the new address, used once. The
 * account moves there (switch-address.ts): from now on the new address logs in and the old one
 * does not; every session ends. Of two accounts racing for one address exactly one moves, the
 * other's link holder is told `email_taken`. The old address gets a notice with a "this wasn't
 * me" link (undo-email-change.ts), valid 7 days.
 */
export async function confirmEmailChange(deps: EmailChangeConfirmDependencies, input: { token: string }): Promise<void> {
  const checked = await checkOneTimeToken(deps, 'email-change', input.token);
  const { email: oldEmail, newEmail } = checked.stored;
  if (newEmail === undefined) throw new InvalidOneTimeTokenError();
  // Used first: of two uses of one link exactly one goes on, even if the switch then loses.
  await consumeOneTimeToken(deps, 'email-change', checked);
  const user = await deps.users.getUserByEmail(oldEmail);
  if (user === undefined) throw new AccountChangedError();
  const outcome = await switchAddress(deps, { userId: user.userId, from: oldEmail, to: newEmail, reason: 'email_changed' });
  if (outcome === 'taken') throw new EmailTakenError();
  if (outcome === 'gone') throw new AccountChangedError();
  await mailUndoLink(deps, { userId: user.userId, oldEmail, newEmail, accountKey: checked.accountKey });
}

/** The old address's notice and its "this wasn't me" link; best effort (a failure is audited: the change is made). */
async function mailUndoLink(deps: EmailChangeConfirmDependencies, change: { userId: string; oldEmail: string; newEmail: string; accountKey: string }): Promise<void> {
  const token = newOneTimeToken(change.accountKey);
  const expiresIn = EMAIL_CHANGE_LIMITS.undoSeconds;
  try {
    await deps.emailUndos.put(change.accountKey, secretHash(token.secret), {
      userId: change.userId,
      oldEmail: change.oldEmail,
      newEmail: change.newEmail,
      expiresAt: epochSeconds(deps.now()) + expiresIn,
    });
    await deps.mail.emailChanged(change.oldEmail, change.newEmail, formatOneTimeToken(token), expiresIn);
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'email_changed', code: mailFailureCode(error) });
  }
}
