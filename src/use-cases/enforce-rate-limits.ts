import type { RegisterDependencies } from './dependencies.js';
import { RateLimitedError } from './errors.js';

/**
 * Counts this attempt against the account and the source IP before any hash is computed, so a
 * flood costs one conditional write per request, not an argon2 run. Both counters are hit even
 * when one is over, so each keeps counting.
 */
export async function enforceRateLimits(
  deps: Pick<RegisterDependencies, 'counters' | 'rateLimits' | 'audit' | 'now'>,
  target: { accountKey?: string; emailFingerprint?: string; sourceIp?: string; action: string },
): Promise<void> {
  const { perAccount, perIp, windowSeconds } = deps.rateLimits;
  const now = deps.now?.();
  const [account, ip] = await Promise.all([
    target.accountKey === undefined
      ? undefined
      : deps.counters.hit({ key: `${target.action}#account#${target.accountKey}`, limit: perAccount, windowSeconds, now }),
    target.sourceIp === undefined
      ? undefined
      : deps.counters.hit({ key: `${target.action}#ip#${target.sourceIp}`, limit: perIp, windowSeconds, now }),
  ]);
  if (account && !account.allowed) {
    deps.audit({ type: 'auth.rate_limited', scope: 'account', emailFingerprint: target.emailFingerprint });
    throw new RateLimitedError(Math.max(account.retryAfterSeconds, ip?.allowed === false ? ip.retryAfterSeconds : 0));
  }
  if (ip && !ip.allowed) {
    deps.audit({ type: 'auth.rate_limited', scope: 'ip', emailFingerprint: target.emailFingerprint });
    throw new RateLimitedError(ip.retryAfterSeconds);
  }
}
