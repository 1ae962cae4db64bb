import { ConfigError } from './config-error.js';
import { oneOf, text, wholeNumber, type Env } from './env.js';
import { readServiceName } from './mail-config.js';

/** The rules for new passwords (packages/server/src/features/password/rules/README.md has the reasons). */
export interface PasswordConfig {
  /** PASSLANE_PASSWORD_MIN_LENGTH (8): code points that count after NFKC (packages/server/src/features/password/rules/README.md), 8 to 64; NIST asks 15 where the password is the only factor. */
  minLength: number;
  /** PASSLANE_SERVICE_NAME (passlane): a password containing it is refused, as one containing the email's local part is. */
  serviceName: string;
  breachCheck: BreachCheckConfig;
}

export interface BreachCheckConfig {
  /** PASSLANE_BREACH_CHECK (false): ask Have I Been Pwned's range API (k-anonymity) about each new password. */
  enabled: boolean;
  /** PASSLANE_BREACH_CHECK_URL: the range endpoint, the 5-character prefix appended. */
  url: string;
  /** PASSLANE_BREACH_CHECK_TIMEOUT_MS (1000): 100 to 10000. */
  timeoutMs: number;
  /** PASSLANE_BREACH_CHECK_MIN_COUNT (1): sightings in the corpus from which a password is refused. */
  minCount: number;
  /** PASSLANE_BREACH_CHECK_FAIL_CLOSED (false): when the check cannot answer, refuse with 503 instead of accepting. */
  failClosed: boolean;
}

export const DEFAULT_PASSWORD_MIN_LENGTH = 8;
export const DEFAULT_BREACH_CHECK_URL = 'https://api.pwnedpasswords.com/range/';

export function readPasswordConfig(env: Env): PasswordConfig {
  return {
    minLength: wholeNumber(env, 'PASSLANE_PASSWORD_MIN_LENGTH', { fallback: DEFAULT_PASSWORD_MIN_LENGTH, min: 8, max: 64 }),
    serviceName: readServiceName(env),
    breachCheck: {
      enabled: flag(env, 'PASSLANE_BREACH_CHECK'),
      url: readBreachCheckUrl(env),
      timeoutMs: wholeNumber(env, 'PASSLANE_BREACH_CHECK_TIMEOUT_MS', { fallback: 1000, min: 100, max: 10_000 }),
      minCount: wholeNumber(env, 'PASSLANE_BREACH_CHECK_MIN_COUNT', { fallback: 1, min: 1, max: 1_000_000_000 }),
      failClosed: flag(env, 'PASSLANE_BREACH_CHECK_FAIL_CLOSED'),
    },
  };
}

function flag(env: Env, name: string): boolean {
  return oneOf(env, name, ['true', 'false']) === 'true';
}

/** An http(s) URL without query or fragment; `/` is added at the end when missing. */
function readBreachCheckUrl(env: Env): string {
  const value = text(env, 'PASSLANE_BREACH_CHECK_URL');
  if (value === undefined) return DEFAULT_BREACH_CHECK_URL;
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
