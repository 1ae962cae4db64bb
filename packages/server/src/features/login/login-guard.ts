/**
 * The limits of a login, as decisions: over the state read (a limited login is refused before
 * any write), and the numbers each attempt's reservation holds to (LoginGuardStore `reserve`).
 * Failures are counted (an attempt is reserved before its check and given back when right),
 * never attempts, so a stranger who knows an email cannot keep its owner
 * out below the account-wide ceiling; a known device (packages/server/src/features/sessions/device-token.ts) is counted
 * on its own and not even then. Good logins are bounded too, so right passwords to one's own
 * accounts cannot take all the hashing. Defaults and reasons in packages/server/src/features/login/settings.ts
 * and packages/server/src/features/login/LIMITS.md.
 */
import type { LoginState, ReservationLimits } from '../../storage/login-guard-store.js';
import { FAILURE_MEMORY_SECONDS } from '../../storage/login-guard-store.js';
import type { AccountSessions, LoginCount, StoredDevice } from '../../storage/session-store.js';
import type { LimitScope } from '../../accounts/audit-events.js';
import type { RateLimits } from './settings.js';

/**
 * Which limit, if any, stops this attempt before any hash is computed, and for how long. With a
 * known device only that device's waits and the account's bound on good logins apply: not the
 * account-wide ceiling a stranger can run up, nor a source's limits that others behind the same
 * address share.
 */
export function limitReached(
  state: LoginState,
  limits: RateLimits,
  nowSeconds: number,
  device?: StoredDevice,
): { scope: LimitScope; retryAfterSeconds: number } | undefined {
  const wait = (until: number) => Math.max(1, until - nowSeconds);
  const { login } = limits;
  const windowStart = nowSeconds - (nowSeconds % limits.windowSeconds);
  const windowEnd = windowStart + limits.windowSeconds;
  if (device !== undefined) {
    if (device.blockedUntil > nowSeconds) return { scope: 'device', retryAfterSeconds: wait(device.blockedUntil) };
  } else {
    if (state.account.failures >= login.accountFailureCeiling) return { scope: 'account', retryAfterSeconds: wait(state.account.expiresAt) };
    if (state.accountSource.blockedUntil > nowSeconds) return { scope: 'account_source', retryAfterSeconds: wait(state.accountSource.blockedUntil) };
    if (state.source.failures >= limits.perSource) return { scope: 'source', retryAfterSeconds: wait(state.source.windowEnd) };
    if (state.source.successes >= login.successesPerSource) return { scope: 'source_success', retryAfterSeconds: wait(state.source.windowEnd) };
  }
  // Only the password's holder makes good logins: this tells a stranger nothing about the account.
  const logins = state.sessions.logins;
  if (logins.windowStart === windowStart && logins.count >= login.successesPerAccount) return { scope: 'account_success', retryAfterSeconds: wait(windowEnd) };
  return undefined;
}

/** The account's good logins in this window, with this one. */
export function countedLogin(sessions: AccountSessions, limits: RateLimits, nowSeconds: number): LoginCount {
  const windowStart = nowSeconds - (nowSeconds % limits.windowSeconds);
  const logins = sessions.logins;
  return { windowStart, count: logins.windowStart === windowStart ? logins.count + 1 : 1 };
}

/**
 * What this attempt's reservation holds to (login-guard-store.ts `reserve`): past
 * `failuresPerAccountSource` failures of this email from this source, each next attempt waits,
 * the wait doubling from `delayBaseSeconds` up to `delayMaxSeconds`; the account-wide run lasts
 * `accountLockSeconds` past its last failure and holds `accountFailureCeiling`; the source's
 * window holds `perSource`.
 */
export function reservationLimits(limits: RateLimits, nowSeconds: number): ReservationLimits {
  const { delayMaxSeconds, accountLockSeconds, accountFailureCeiling } = limits.login;
  return {
    accountCeiling: accountFailureCeiling,
    accountExpiresAt: nowSeconds + accountLockSeconds,
    freeFailures: freeFailures(limits),
    blockedUntilAfter: (failures) => blockedUntilAfter(failures, limits, nowSeconds),
    accountSourceExpiresAt: nowSeconds + Math.max(FAILURE_MEMORY_SECONDS, delayMaxSeconds),
    perSource: limits.perSource,
  };
}

/** Failures of one email from one source (or of one device) that earn no wait: the one that reaches the limit sets the first. */
function freeFailures(limits: RateLimits): number {
  return Math.max(0, limits.login.failuresPerAccountSource - 1);
}

/** Until when the next attempt waits after `failures` (this one counted): a known device's as one source's on the account. */
function blockedUntilAfter(failures: number, limits: RateLimits, nowSeconds: number): number {
  const { failuresPerAccountSource, delayBaseSeconds, delayMaxSeconds } = limits.login;
  const over = failures - failuresPerAccountSource;
  // 2^over overflows nothing: over is capped before the power (the delay is capped anyway).
  const delay = over < 0 ? 0 : Math.min(delayMaxSeconds, delayBaseSeconds * 2 ** Math.min(over, 30));
  return delay === 0 ? 0 : nowSeconds + delay;
}
