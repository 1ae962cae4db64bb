/**
 * The failure limits of a login, as decisions over the state read before the verify
 * (LoginGuardStore). Only failures count, never attempts: a stranger who knows an email cannot
 * keep its owner out, below the account-wide ceiling. Defaults and reasons in
 * src/config/rate-limit-config.ts and src/use-cases/LIMITS.md.
 */
import type { FailureUpdate, LoginState } from '../storage/login-guard-store.js';
import { FAILURE_MEMORY_SECONDS } from '../storage/login-guard-store.js';
import type { RateLimits } from './dependencies.js';

export type LimitScope = 'account' | 'account_source' | 'source';

/** Which limit, if any, stops this attempt before any hash is computed, and for how long. */
export function limitReached(state: LoginState, limits: RateLimits, nowSeconds: number): { scope: LimitScope; retryAfterSeconds: number } | undefined {
  const wait = (until: number) => Math.max(1, until - nowSeconds);
  if (state.account.failures >= limits.login.accountFailureCeiling) return { scope: 'account', retryAfterSeconds: wait(state.account.expiresAt) };
  if (state.accountSource.blockedUntil > nowSeconds) return { scope: 'account_source', retryAfterSeconds: wait(state.accountSource.blockedUntil) };
  if (state.source.failures >= limits.perSource) return { scope: 'source', retryAfterSeconds: wait(state.source.windowEnd) };
  return undefined;
}

/**
 * What one more failure writes: past `failuresPerAccountSource` failures of this email from this
 * source, each next attempt waits, the wait doubling from `delayBaseSeconds` up to
 * `delayMaxSeconds`; the account-wide run lasts `accountLockSeconds` past its last failure.
 */
export function failureUpdate(state: LoginState, limits: RateLimits, nowSeconds: number): FailureUpdate {
  const { failuresPerAccountSource, delayBaseSeconds, delayMaxSeconds, accountLockSeconds } = limits.login;
  const failures = state.accountSource.failures + 1;
  const over = failures - failuresPerAccountSource;
  // 2^over overflows nothing: over is capped before the power (the delay is capped anyway).
  const delay = over < 0 ? 0 : Math.min(delayMaxSeconds, delayBaseSeconds * 2 ** Math.min(over, 30));
  return {
    accountExpiresAt: nowSeconds + accountLockSeconds,
    blockedUntil: delay === 0 ? 0 : nowSeconds + delay,
    accountSourceExpiresAt: nowSeconds + Math.max(FAILURE_MEMORY_SECONDS, delayMaxSeconds),
  };
}
