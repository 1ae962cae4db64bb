import { utf8, utf8Length } from './encoding.js';
import { InvalidPasswordError, PasswordTooLongError, PasswordTooShortError } from './errors.js';
import type { PasswordRules } from './policy.js';

/**
 * Checks the type and byte bound of a password. Runs before any hashing or normalisation, so a
 * multi-megabyte "password" is refused for the price of a length count.
 */
export function assertPasswordWithinBounds(password: unknown, rules: PasswordRules): asserts password is string {
  if (typeof password !== 'string') throw new InvalidPasswordError('password must be a string');
  // utf8Length >= length / 1; a quick check on .length first avoids scanning huge strings.
  if (password.length > rules.maxBytes || utf8Length(password) > rules.maxBytes) {
    throw new PasswordTooLongError(`password must be at most ${rules.maxBytes} bytes`);
  }
}

/**
 * The bytes passlane's own argon2id hashes take: NFKC, so the same password typed on different
 * keyboards or systems (composed vs decomposed accents, full-width forms) matches (NIST SP 800-63B).
 */
export function normalisedPasswordBytes(password: string, rules: PasswordRules): Uint8Array {
  const normalised = password.normalize('NFKC');
  const bytes = utf8(normalised);
  // NFKC can expand a character up to 18 times: bound the result too.
  if (bytes.length > rules.maxBytes) throw new PasswordTooLongError(`password must be at most ${rules.maxBytes} bytes`);
  return bytes;
}

/** Whether `normalisedPasswordBytes` accepts the password, i.e. whether `hash` can take it. */
export function fitsAfterNormalising(password: string, rules: PasswordRules): boolean {
  return utf8Length(password.normalize('NFKC')) <= rules.maxBytes;
}

const LONE_SURROGATE = /\p{Surrogate}/u;

/** Password rules for new hashes: the bound above plus the minimum length, counted in code points. */
export function assertAcceptablePassword(password: unknown, rules: PasswordRules): asserts password is string {
  assertPasswordWithinBounds(password, rules);
  // UTF-8 encodes every lone surrogate as U+FFFD, so distinct strings would share one hash.
  if (LONE_SURROGATE.test(password)) throw new InvalidPasswordError('password must be well-formed Unicode (no lone surrogates)');
  const codePoints = [...password.normalize('NFKC')].length;
  if (codePoints < rules.minLength) {
    throw new PasswordTooShortError(`password must be at least ${rules.minLength} characters`);
  }
}
