import { formatOneTimeToken, newOneTimeToken } from './one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { PasswordResetRequestDependencies } from './dependencies.js';
import { mailFailureCode } from './mail-failure.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/**
 * POST /password/reset: the same answer (202) in the same time whether or not the account
 * exists. For an account within its budgets a new token replaces the outstanding one (so an
 * earlier link stops working) and goes out by mail. Limits per account and per source are
 * silent too. Every answer waits as long as the slowest one this container has seen recently,
 * so the mail's round trip does not tell a known address from an unknown one.
 */
export async function requestPasswordReset(deps: PasswordResetRequestDependencies, request: { email: string; sourceIp?: string }): Promise<void> {
  const email = canonicalEmail(request.email);
  const timing = deps.replyTiming?.start();
  const accountKey = deps.fingerprint(email);
  const outcome = await sendResetIfAllowed(deps, email, accountKey, request.sourceIp);
  deps.audit({ type: 'auth.password_reset_requested', outcome, emailFingerprint: accountKey });
  await deps.replyTiming?.pad(timing?.done() ?? 0);
}

async function sendResetIfAllowed(deps: PasswordResetRequestDependencies, email: string, accountKey: string, sourceIp: string | undefined) {
  const now = deps.now();
  const { perSource, windowSeconds } = deps.rateLimits;
  const [account, source, user] = await Promise.all([
    deps.counters.hit({ key: `reset#account#${accountKey}`, limit: deps.recovery.mailsPerAccountPerHour, windowSeconds: 3600, now }),
    deps.counters.hit({ key: `reset#ip#${sourceKeyOf(sourceIp)}`, limit: perSource, windowSeconds, now }),
    deps.users.getUserByEmail(email),
  ]);
  if (!account.allowed || !source.allowed) return 'rate_limited';
  if (user === undefined) return 'unknown_account';
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.recovery.resetTokenSeconds;
  await deps.oneTimeTokens.put('reset', accountKey, { tokenHash: secretHash(token.secret), email, expiresAt: epochSeconds(now) + expiresIn });
  try {
    return (await deps.mail.passwordReset(email, formatOneTimeToken(token), expiresIn)) ?? 'sent';
  } catch (error) {
    // The same 202: a failure here would tell who has an account. The operator sees the metric.
    deps.audit({ type: 'auth.mail_failed', mail: 'password_reset', code: mailFailureCode(error) });
    return 'mail_failed';
  }
}
