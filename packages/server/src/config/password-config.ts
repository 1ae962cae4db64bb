import { DEFAULT_BREACH_CHECK, DEFAULT_PASSWORD_MIN_LENGTH, type PasswordConfig } from '../features/password/settings.js';
import { ConfigError } from './config-error.js';
import { oneOf, text, wholeNumber, type Env } from './env.js';
import { readServiceName } from './mail-config.js';

export function readPasswordConfig(env: Env): PasswordConfig {
  return {
    minLength: wholeNumber(env, 'PASSLANE_PASSWORD_MIN_LENGTH', { fallback: DEFAULT_PASSWORD_MIN_LENGTH, min: 8, max: 64 }),
    serviceName: readServiceName(env),
    breachCheck: {
      enabled: flag(env, 'PASSLANE_BREACH_CHECK', DEFAULT_BREACH_CHECK.enabled),
      url: readBreachCheckUrl(env),
      timeoutMs: wholeNumber(env, 'PASSLANE_BREACH_CHECK_TIMEOUT_MS', { fallback: DEFAULT_BREACH_CHECK.timeoutMs, min: 100, max: 10_000 }),
      minCount: wholeNumber(env, 'PASSLANE_BREACH_CHECK_MIN_COUNT', { fallback: DEFAULT_BREACH_CHECK.minCount, min: 1, max: 1_000_000_000 }),
      failClosed: flag(env, 'PASSLANE_BREACH_CHECK_FAIL_CLOSED', DEFAULT_BREACH_CHECK.failClosed),
    },
  };
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = oneOf(env, name, ['true', 'false']);
  return value === undefined ? fallback : value === 'true';
}

/** An http(s) URL without query or fragment; `/` is added at the end when missing. */
function readBreachCheckUrl(env: Env): string {
  const value = text(env, 'PASSLANE_BREACH_CHECK_URL');
  if (value === undefined) return DEFAULT_BREACH_CHECK.url;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PASSLANE_BREACH_CHECK_URL', `must be an http(s) URL (got ${JSON.stringify(value)})`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('PASSLANE_BREACH_CHECK_URL', `must be an http(s) URL without query, fragment or credentials (got ${JSON.stringify(value)})`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}
