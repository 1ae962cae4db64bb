import { md5 } from '@noble/hashes/legacy.js';
import type { CHash } from '@noble/hashes/utils.js';
import { utf8, utf8Length } from '../encoding.js';
import { MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { decodeHash64, HASH64, NEVER_MATCHES, runRounds, zeroHash64 } from './crypt-common.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * phpass "portable" hashes (Solar Designer's Portable PHP password hashing framework, as shipped
 * in WordPress `wp-includes/class-phpass.php` and used by phpBB3): `$P$` (WordPress) and `$H$`
 * (phpBB3) are the same algorithm. Source read: PasswordHash::crypt_private and encode64 in
 * WordPress 6.1.9's copy (Debian package wordpress 6.1.9+dfsg1-0+deb12u1).
 *
 *   $P$<log2 rounds as one itoa64 char><8 salt chars><22 itoa64 chars of MD5>      (34 chars)
 *
 * hash = MD5(salt || password), then 2^log2 times hash = MD5(hash || password); log2 is 7..30
 * (crypt_private refuses others) and bounded by `phpassMaxLog2Rounds` before any hashing.
 * CheckPassword refuses passwords over 4096 bytes; they never verify here either.
 */
export const PHPASS_MIN_LOG2 = 7;
export const PHPASS_MAX_LOG2 = 30;
const MAX_PASSWORD_BYTES = 4096;
const SETTING = /^(\$[PHS]\$)([./0-9A-Za-z])([./0-9A-Za-z]{8})/;

export interface PhpassSetting {
  log2Rounds: number;
  salt: Uint8Array;
}

/** Reads the 12-character setting that phpass and Drupal share, bounds first. */
export function parsePhpassSetting(stored: string, scheme: string, limits: StoredHashLimits): PhpassSetting {
  const match = SETTING.exec(stored);
  if (!match) throw new MalformedHashError(`${scheme} hash must start with a 12-character setting: id, itoa64 count, 8 itoa64 salt chars`);
  const [, , countChar, salt] = match as unknown as [string, string, string, string];
  const log2 = HASH64.indexOf(countChar);
  if (log2 < PHPASS_MIN_LOG2 || log2 > PHPASS_MAX_LOG2) throw new MalformedHashError(`${scheme} log2 rounds=${log2} is outside 7..30 (the original refuses it)`);
  // The same message and error as every other bound.
  parseBoundedInteger(String(log2), `${scheme} log2 rounds`, PHPASS_MIN_LOG2, limits.phpassMaxLog2Rounds);
  return { log2Rounds: log2, salt: utf8(salt) };
}

/** hash = H(salt || password); 2^log2 times hash = H(hash || password). */
export async function phpassStretch(hash: CHash, salt: Uint8Array, password: Uint8Array, log2Rounds: number): Promise<Uint8Array> {
  const size = hash.outputLen;
  const buffer = new Uint8Array(size + password.length);
  buffer.set(hash.create().update(salt).update(password).digest(), 0);
  buffer.set(password, size);
  await runRounds(2 ** log2Rounds, () => buffer.set(hash(buffer), 0));
  return buffer.slice(0, size);
}

function parsePhpass(stored: string, limits: StoredHashLimits): ParsedHash {
  if (stored.length !== 34) throw new MalformedHashError('phpass hash must be 34 characters');
  const { log2Rounds, salt } = parsePhpassSetting(stored, 'phpass', limits);
  const hashText = stored.slice(12);
  const digest = decodeHash64(hashText, 'phpass hash');
  return {
    scheme: 'phpass',
    memoryKiB: 1,
    cost: `log2=${log2Rounds}`,
    digest,
    digestText: hashText,
    zeroDigestText: zeroHash64(16),
    async computeDigest(password) {
      if (utf8Length(password) > MAX_PASSWORD_BYTES) return NEVER_MATCHES;
      return phpassStretch(md5, salt, utf8(password), log2Rounds);
    },
  };
}

export const phpassScheme: HashScheme = {
  matches: (stored) => stored.startsWith('$P$') || stored.startsWith('$H$'),
  parse: parsePhpass,
};
