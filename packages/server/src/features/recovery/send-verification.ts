import { formatOneTimeToken, newOneTimeToken } from './one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { VerificationMailDependencies } from './dependencies.js';
import { mailFailureCode } from './mail-failure.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/**
 * A new verification token for the account (replacing any outstanding one) and its mail, within
 * the account's hourly mail budget. Never fails the caller: a mail that cannot go out is an
 * audit event (and a metric), not an answer that would differ by account.
 */
export async function sendVerification(
  deps: VerificationMailDependencies,
  account: { email: string; accountKey: string; userId?: string },
): Promise<void> {
  const now = deps.now();
  const budget = await deps.counters.hit({ key: `verify-mail#account#${account.accountKey}`, limit: deps.recovery.mailsPerAccountPerHour, windowSeconds: 3600, now });
  if (!budget.allowed) return;
  const token = newOneTimeToken(account.accountKey);
  const expiresIn = deps.recovery.verifyTokenSeconds;
  await deps.oneTimeTokens.put('verify', account.accountKey, {
    tokenHash: secretHash(token.secret),
    email: account.email,
    expiresAt: epochSeconds(now) + expiresIn,
  });
  try {
    await deps.mail.emailVerification(account.email, formatOneTimeToken(token), expiresIn);
    deps.audit({ type: 'auth.verification_sent', ...(account.userId && { userId: account.userId }), emailFingerprint: account.accountKey });
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'email_verification', code: mailFailureCode(error) });
  }
}
