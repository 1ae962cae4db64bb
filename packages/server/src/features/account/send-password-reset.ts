import type { Actor } from '../../accounts/audit-events.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { formatOneTimeToken, newOneTimeToken } from '../recovery/one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { findAccount } from './find-account.js';

/**
 * Mails the owner a password reset link, as POST /password/reset makes one (it replaces the
 * outstanding one) but outside its hourly budget: an operator asked, on the owner's behalf. The
 * link goes to the account's address only; the operator never sees it.
 */
export async function sendPasswordReset(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor }): Promise<{ outcome: 'sent' | 'not_sent' | 'mail_failed' }> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.recovery.resetTokenSeconds;
  await deps.oneTimeTokens.put('reset', accountKey, { tokenHash: secretHash(token.secret), email: user.email, expiresAt: epochSeconds(deps.now()) + expiresIn });
  let outcome: 'sent' | 'not_sent' | 'mail_failed';
  try {
    outcome = (await deps.mail.passwordReset(user.email, formatOneTimeToken(token), expiresIn)) ?? 'sent';
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'password_reset', code: (error as { code?: string }).code ?? 'unknown' });
    outcome = 'mail_failed';
  }
  deps.audit({ type: 'auth.password_reset_sent_by_operator', userId: user.userId, outcome, actor: input.actor });
  return { outcome };
}
