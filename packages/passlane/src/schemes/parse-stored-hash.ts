import { HashParametersOutOfBoundsError, MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { argon2Scheme, rawArgon2Scheme } from './argon2-phc.js';
import { bcryptScheme } from './bcrypt.js';
import { djangoScheme } from './django.js';
import { passlibScheme } from './passlib.js';
import { FRAMEWORK_SCHEMES } from './framework-schemes.js';
import type { HashScheme, ParsedHash } from './types.js';
import { UNIX_SCHEMES } from './unix-schemes.js';
import { wrappedScheme } from './wrapped.js';

// Order matters where prefixes overlap: Spring's lower-case `{sha256}` is matched before LDAP's `{SHA256}`.
const LEGACY_SCHEMES: readonly HashScheme[] = [
  argon2Scheme,
  rawArgon2Scheme,
  bcryptScheme,
  djangoScheme,
  passlibScheme,
  ...FRAMEWORK_SCHEMES,
  ...UNIX_SCHEMES,
];
const SCHEMES: readonly HashScheme[] = [...LEGACY_SCHEMES, wrappedScheme(parseWith(LEGACY_SCHEMES))];

/**
 * Finds the scheme of a stored (un-peppered) value and parses it, bounds included. Throws
 * UnsupportedHashError, MalformedHashError or HashParametersOutOfBoundsError; does no hashing.
 */
export const parseStoredHash = parseWith(SCHEMES);

/** The first bound, checked before anything else is read (pepper envelopes included). */
export function assertEncodedLength(stored: string, limits: StoredHashLimits): void {
  if (stored.length > limits.maxEncodedLength) {
    throw new HashParametersOutOfBoundsError(`stored hash is longer than ${limits.maxEncodedLength} characters`);
  }
}

function parseWith(schemes: readonly HashScheme[]) {
  return (stored: unknown, limits: StoredHashLimits): ParsedHash => {
    if (typeof stored !== 'string' || stored.length === 0) throw new MalformedHashError('stored hash must be a non-empty string');
    assertEncodedLength(stored, limits);
    const scheme = schemes.find((candidate) => candidate.matches(stored));
    if (!scheme) throw new UnsupportedHashError('unrecognised password hash format');
    return scheme.parse(stored, limits);
  };
}
