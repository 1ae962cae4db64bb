import type { LoginRateLimits } from '../use-cases/dependencies.js';
import { wholeNumber, type Env } from './env.js';

export const DEFAULT_LOGIN_RATE_LIMITS: Readonly<LoginRateLimits> = { perAccount: 10, perIp: 100, windowSeconds: 300 };

/** PASSLANE_LOGIN_LIMIT_PER_ACCOUNT, PASSLANE_LOGIN_LIMIT_PER_IP, PASSLANE_LOGIN_LIMIT_WINDOW_S. */
export function readLoginRateLimits(env: Env): LoginRateLimits {
  const defaults = DEFAULT_LOGIN_RATE_LIMITS;
  return {
    perAccount: wholeNumber(env, 'PASSLANE_LOGIN_LIMIT_PER_ACCOUNT', { fallback: defaults.perAccount, min: 1, max: 1_000_000 }),
    perIp: wholeNumber(env, 'PASSLANE_LOGIN_LIMIT_PER_IP', { fallback: defaults.perIp, min: 1, max: 1_000_000 }),
    // Up to a day: windows are DynamoDB items with a TTL, and longer ones are better done elsewhere.
    windowSeconds: wholeNumber(env, 'PASSLANE_LOGIN_LIMIT_WINDOW_S', { fallback: defaults.windowSeconds, min: 1, max: 86_400 }),
  };
}
