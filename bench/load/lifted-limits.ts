/**
 * Benches log one account in thousands of times from one address, and refresh one session
 * hundreds of times; the login limits (packages/server/src/features/login/LIMITS.md: failures, and good logins per
 * account and per source) would answer 429 long before,
 * and so would the per-session refresh budget (packages/server/src/features/sessions/settings.ts, 60 an hour). These
 * lift them as far as the configuration allows (the account-wide ceiling stays at NIST's 100:
 * the benches' logins succeed, and a success clears it; the refresh budget's maximum is 10000
 * an hour per session).
 */
import type { Env } from '../../packages/server/src/config/env.js';
import { readConfig } from '../../packages/server/src/config/read-config.js';

export const LIFTED_LOGIN_LIMITS: Readonly<Record<string, string>> = {
  PASSLANE_LOGIN_LIMIT_PER_IP: '1000000',
  PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '100',
  PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: '100',
  PASSLANE_LOGIN_SUCCESS_LIMIT_PER_ACCOUNT: '1000000',
  PASSLANE_LOGIN_SUCCESS_LIMIT_PER_IP: '1000000',
  PASSLANE_REFRESH_LIMIT_PER_SESSION: '10000',
};

/** `env` with the limits lifted, checked like a host would (a bad setting of the caller's fails here). */
export function withLiftedLoginLimits(env: Env): Record<string, string | undefined> {
  const lifted = { ...env, ...LIFTED_LOGIN_LIMITS };
  readConfig(lifted);
  return lifted;
}
