import { canonicalEmail } from '../../accounts/canonical-email.js';
import { AccountDisabledError, InvalidRequestError, UnauthenticatedError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { SWITCH_PENDING_HASH } from '../../storage/email-switch-store.js';
import { requireFactorLoginOnceEnrolled, requireRecentLogin } from '../mfa/recent-login.js';
import { mailFailureCode } from '../recovery/mail-failure.js';
import { formatOneTimeToken, newOneTimeToken } from '../recovery/one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { EmailChangeRequestDependencies } from './dependencies.js';
import { EMAIL_CHANGE_LIMITS } from './settings.js';

export interface EmailChangeRequest {
  /** Who asks: the live session of the Bearer token (checked by the route before the body). */
  caller: AuthenticatedSession;
  /** As typed: its canonical form (accounts/canonical-email.ts) is what the account would move to. */
  newEmail: string;
}

/** What the request did, for the audit; the caller is answered alike for all of them. */
type RequestOutcome = 'sent' | 'not_sent' | 'mail_failed' | 'taken' | 'rate_limited';

/**
 * POST /email/change { newEmail }: nothing changes yet. A recent login is needed (and one that
 * used a second factor, on an account that has one): whoever holds only a session, or only the
 * password, cannot move the account. The link to make the change goes to the new address (the
 * mailbox proves itself); if that address has an account already, its owner is told someone
 * tried instead, and the caller gets the same answer either way (README.md here). Each mail is
 * within two hourly budgets: the new mailbox's and the account's.
 */
export async function requestEmailChange(deps: EmailChangeRequestDependencies, request: EmailChangeRequest): Promise<void> {
  const newEmail = canonicalEmail(request.newEmail);
  const { caller } = request;
  const now = deps.now();
  try {
    requireRecentLogin(caller.session, now);
  } catch (error) {
    deps.audit({ type: 'auth.mfa_failed', reason: 'recent_login_required', userId: caller.userId });
    throw error;
  }
  const user = await accountOf(deps, caller.userId);
  const accountKey = deps.fingerprint(user.email);
  requireFactorLoginOnceEnrolled(deps, caller, await deps.mfa.read(accountKey));
  if (user.disabledAt !== undefined) throw new AccountDisabledError();
  // The caller's own address: telling them so tells nothing of anyone else's.
  if (newEmail === user.email) throw new InvalidRequestError('newEmail is already the address of this account', 'newEmail');
  const newKey = deps.fingerprint(newEmail);
  const outcome = await sendIfAllowed(deps, { userId: user.userId, email: user.email, accountKey, newEmail, newKey, now });
  deps.audit({ type: 'auth.email_change_requested', userId: user.userId, outcome, emailFingerprint: newKey });
}

/**
 * The caller's account. While a switch stopped midway on a server without transactions, the
 * userId index may name its pending item at the new address: that is settled first, and the
 * account read where it is.
 */
async function accountOf(deps: EmailChangeRequestDependencies, userId: string) {
  const found = await deps.users.getUserById(userId);
  if (found === undefined) throw new UnauthenticatedError('the account no longer exists');
  if (found.passwordHash !== SWITCH_PENDING_HASH) return found;
  const email = await deps.emailSwitches.settlePending(found.email, userId, deps.fingerprint);
  const user = email === found.email ? found : await deps.users.getUserByEmail(email);
  if (user?.userId !== userId) throw new UnauthenticatedError('the account no longer exists');
  return user;
}

async function sendIfAllowed(
  deps: EmailChangeRequestDependencies,
  account: { userId: string; email: string; accountKey: string; newEmail: string; newKey: string; now: Date },
): Promise<RequestOutcome> {
  const { newEmail, newKey, accountKey, now } = account;
  const limit = deps.recovery.mailsPerAccountPerHour;
  const [mailbox, own, existing] = await Promise.all([
    deps.counters.hit({ key: `email-change-mail#account#${newKey}`, limit, windowSeconds: 3600, now }),
    deps.counters.hit({ key: `email-change#account#${accountKey}`, limit, windowSeconds: 3600, now }),
    deps.users.getUserByEmail(newEmail),
  ]);
  if (!mailbox.allowed || !own.allowed) return 'rate_limited';
  // This account's own item there is a switch that stopped midway (a server without transactions):
  // the next switch undoes it (storage/README.md), so the address counts as free for it.
  if (existing !== undefined && existing.userId !== account.userId) {
    try {
      await deps.mail.emailChangeAttempt(newEmail);
    } catch (error) {
      deps.audit({ type: 'auth.mail_failed', mail: 'email_change_attempt', code: mailFailureCode(error) });
    }
    return 'taken';
  }
  // One outstanding change per account: a new request voids the earlier link.
  const token = newOneTimeToken(accountKey);
  const expiresIn = EMAIL_CHANGE_LIMITS.linkSeconds;
  await deps.oneTimeTokens.put('email-change', accountKey, { tokenHash: secretHash(token.secret), email: account.email, newEmail, expiresAt: epochSeconds(now) + expiresIn });
  try {
    return (await deps.mail.emailChange(newEmail, formatOneTimeToken(token), expiresIn)) ?? 'sent';
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'email_change', code: mailFailureCode(error) });
    return 'mail_failed';
  }
}
