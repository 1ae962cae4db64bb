/**
 * Login rate limits from env, in a module with no runtime dependencies so the Worker can share it:
 * create-auth-dependencies.ts loads Powertools and the Node entry, which an edge bundle refuses.
 * (Same code as there; that file can re-export these and drop its copy.)
 */
import type { LoginRateLimits } from '../use-cases/dependencies.js';

type Env = Record<string, string | undefined>;

/** A setting is missing or makes no sense; the message names the variable and the allowed range. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_LOGIN_RATE_LIMITS: Readonly<LoginRateLimits> = { perAccount: 10, perIp: 100, windowSeconds: 300 };

/** PASSLANE_LOGIN_LIMIT_PER_ACCOUNT, PASSLANE_LOGIN_LIMIT_PER_IP, PASSLANE_LOGIN_LIMIT_WINDOW_S. */
export function loginRateLimitsFromEnv(env: Env): LoginRateLimits {
  return {
    perAccount: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_PER_ACCOUNT', DEFAULT_LOGIN_RATE_LIMITS.perAccount, 1_000_000),
    perIp: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_PER_IP', DEFAULT_LOGIN_RATE_LIMITS.perIp, 1_000_000),
    // Up to a day: windows are DynamoDB items with a TTL, and longer ones are better done elsewhere.
    windowSeconds: positiveInteger(env, 'PASSLANE_LOGIN_LIMIT_WINDOW_S', DEFAULT_LOGIN_RATE_LIMITS.windowSeconds, 86_400),
  };
}

function positiveInteger(env: Env, name: string, fallback: number, max: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max} (got ${JSON.stringify(text)})`);
  }
  return value;
}
