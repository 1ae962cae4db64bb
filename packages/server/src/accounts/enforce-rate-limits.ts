import type { RateLimitStore } from '../storage/rate-limit-store.js';
import type { Audit } from './audit-events.js';
import { RateLimitedError } from './errors.js';
import type { AttemptLimits } from './settings.js';
import { sourceKeyOf } from './source-key.js';

/** What counting attempts takes: the counters, the limits, the audit sink and the clock. */
export interface AttemptCounterDependencies {
  counters: Pick<RateLimitStore, 'hit'>;
  rateLimits: AttemptLimits;
  audit: Audit;
  now: () => Date;
}

/**
 * Attempt counters for the paths where every attempt may count: registration (per source) and
 * password change (per account and per source; only a token holder can attempt it, so nobody
 * else can use it to lock the owner out). Checked before any hash, so a flood costs one write
 * per request, not an argon2 run. Both counters are hit even when one is over, so each keeps
 * counting. Logins count failures instead (login-guard.ts).
 */
export async function enforceRateLimits(
  deps: AttemptCounterDependencies,
  target: { accountKey?: string; emailFingerprint?: string; sourceIp?: string; action: string },
): Promise<void> {
  const { perSource, passwordChangePerAccount, windowSeconds } = deps.rateLimits;
  const now = deps.now();
  const source = sourceKeyOf(target.sourceIp);
  const [account, ip] = await Promise.all([
    target.accountKey === undefined
      ? undefined
      : deps.counters.hit({ key: `${target.action}#account#${target.accountKey}`, limit: passwordChangePerAccount, windowSeconds, now }),
    source === undefined ? undefined : deps.counters.hit({ key: `${target.action}#ip#${source}`, limit: perSource, windowSeconds, now }),
  ]);
  if (account && !account.allowed) {
    deps.audit({ type: 'auth.rate_limited', scope: 'account', emailFingerprint: target.emailFingerprint });
    throw new RateLimitedError(Math.max(account.retryAfterSeconds, ip?.allowed === false ? ip.retryAfterSeconds : 0));
  }
  if (ip && !ip.allowed) {
    deps.audit({ type: 'auth.rate_limited', scope: 'source', emailFingerprint: target.emailFingerprint });
    throw new RateLimitedError(ip.retryAfterSeconds);
  }
}
