/**
 * Benches log one account in thousands of times from one address; the login limits would answer
 * 429 long before. Which variables lift them depends on the limits this build reads (attempts
 * per account, or failures per account and source), so each candidate is offered and the ones
 * the configuration refuses (a removed variable is refused, not ignored) are dropped again.
 */
import { ConfigError } from '../../config/config-error.js';
import type { Env } from '../../config/env.js';
import { readConfig } from '../../config/read-config.js';

export const LIFTED_LOGIN_LIMITS: Readonly<Record<string, string>> = {
  PASSLANE_LOGIN_LIMIT_PER_ACCOUNT: '1000000',
  PASSLANE_LOGIN_LIMIT_PER_IP: '1000000',
  PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '100',
  PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: '100',
};

export function withLiftedLoginLimits(env: Env): Record<string, string | undefined> {
  const lifted: Record<string, string | undefined> = { ...env, ...LIFTED_LOGIN_LIMITS };
  // Ends: each pass either returns, throws, or drops one of our own variables.
  for (;;) {
    try {
      readConfig(lifted);
      return lifted;
    } catch (error) {
      const name = error instanceof ConfigError ? error.variable : undefined;
      // Anything else is the caller's own setting: let it surface.
      if (name === undefined || !(name in LIFTED_LOGIN_LIMITS) || !(name in lifted)) throw error;
      delete lifted[name];
    }
  }
}
