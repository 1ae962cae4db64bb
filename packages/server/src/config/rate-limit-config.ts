import { DEFAULT_RATE_LIMITS, type RateLimits } from '../features/login/settings.js';
import { ConfigError } from './config-error.js';
import { decimalNumber, text, wholeNumber, type Env } from './env.js';

const DAY = 86_400;

export function readRateLimits(env: Env): RateLimits {
  // Attempts per account no longer exist: failures are counted instead (a stranger's attempts
  // must not lock a user out). Refuse the old variable rather than ignore it silently.
  if (text(env, 'PASSLANE_LOGIN_LIMIT_PER_ACCOUNT') !== undefined) {
    throw new ConfigError(
      'PASSLANE_LOGIN_LIMIT_PER_ACCOUNT',
      'is no longer read: login counts failures now; use PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE, PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING and PASSLANE_PASSWORD_CHANGE_LIMIT_PER_ACCOUNT',
    );
  }
  const d = DEFAULT_RATE_LIMITS;
  const delayBaseSeconds = wholeNumber(env, 'PASSLANE_LOGIN_DELAY_BASE_S', { fallback: d.login.delayBaseSeconds, min: 1, max: DAY });
  // What `passlane inventory --timing` prints. At most 100: at ~40 ms a current verify, more would
  // pad failures past the deployed 5 s verify budget, which no stored record may need.
  const failurePadFactor = decimalNumber(env, 'PASSLANE_LOGIN_FAILURE_PAD_FACTOR', { min: 1, max: 100 });
  return {
    perSource: wholeNumber(env, 'PASSLANE_LOGIN_LIMIT_PER_IP', { fallback: d.perSource, min: 1, max: 1_000_000 }),
    // Up to a day: windows are DynamoDB items with a TTL, and longer ones are better done elsewhere.
    windowSeconds: wholeNumber(env, 'PASSLANE_LOGIN_LIMIT_WINDOW_S', { fallback: d.windowSeconds, min: 1, max: DAY }),
    passwordChangePerAccount: wholeNumber(env, 'PASSLANE_PASSWORD_CHANGE_LIMIT_PER_ACCOUNT', {
      fallback: d.passwordChangePerAccount,
      min: 1,
      max: 1_000_000,
    }),
    login: {
      failuresPerAccountSource: wholeNumber(env, 'PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE', {
        fallback: d.login.failuresPerAccountSource,
        min: 1,
        max: 100,
      }),
      delayBaseSeconds,
      delayMaxSeconds: wholeNumber(env, 'PASSLANE_LOGIN_DELAY_MAX_S', { fallback: Math.max(d.login.delayMaxSeconds, delayBaseSeconds), min: delayBaseSeconds, max: DAY }),
      // NIST SP 800-63B-4 §3.2.2: no more than 100 consecutive failed attempts on one account.
      accountFailureCeiling: wholeNumber(env, 'PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING', { fallback: d.login.accountFailureCeiling, min: 1, max: 100 }),
      accountLockSeconds: wholeNumber(env, 'PASSLANE_LOGIN_ACCOUNT_LOCK_S', { fallback: d.login.accountLockSeconds, min: 1, max: 30 * DAY }),
      // 0: failures wait only for the slowest shape this container has seen (login-failure-timing.ts).
      failureFloorMs: wholeNumber(env, 'PASSLANE_LOGIN_FAILURE_FLOOR_MS', { fallback: d.login.failureFloorMs, min: 0, max: 10_000 }),
      successesPerAccount: wholeNumber(env, 'PASSLANE_LOGIN_SUCCESS_LIMIT_PER_ACCOUNT', { fallback: d.login.successesPerAccount, min: 1, max: 1_000_000 }),
      successesPerSource: wholeNumber(env, 'PASSLANE_LOGIN_SUCCESS_LIMIT_PER_IP', { fallback: d.login.successesPerSource, min: 1, max: 1_000_000 }),
      ...(failurePadFactor !== undefined && { failurePadFactor }),
    },
  };
}
