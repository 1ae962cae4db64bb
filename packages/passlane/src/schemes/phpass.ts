import { md5 } from '@noble/hashes/legacy.js';
import type { CHash } from '@noble/hashes/utils.js';
import { utf8, utf8Length } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError } from '../errors.js';
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
 *
 * Each round hashes the password again, so a verify costs rounds × the blocks one round hashes,
 * and that grows with the password: bounded by `phpassMaxWork` twice, when parsed for the empty
 * password (a record over it verifies nothing) and when verified for the password given (see
 * `assertWithinWork`). So a record with more rounds than the longest password allows (passlib's
 * default, 2^19) still verifies the passwords that fit, instead of being refused for all.
 */
export const PHPASS_MIN_LOG2 = 7;
export const PHPASS_MAX_LOG2 = 30;
const MAX_PASSWORD_BYTES = 4096;
const SETTING = /^(\$[PHS]\$)([./0-9A-Za-z])([./0-9A-Za-z]{8})/;

export interface PhpassSetting {
  log2Rounds: number;
  salt: Uint8Array;
  /** The longest input, in bytes, whose stretching stays within `phpassMaxWork`. */
  maxInputBytes: number;
}

/**
 * The work of one round over an input of `inputBytes`, in 64-byte blocks: the digest and the
 * input, padded by Merkle–Damgård (0x80 and the length: 8 bytes in MD5, 16 in SHA-512). A
 * 128-byte SHA-512 block counts two: in JavaScript it costs 1.7 to 2 MD5 blocks (verify-budget.ts).
 */
export function blocksPerRound(hash: CHash, inputBytes: number): number {
  return Math.ceil((hash.outputLen + inputBytes + 1 + hash.blockLen / 8) / hash.blockLen) * (hash.blockLen / 64);
}

/** The longest input whose 2^log2Rounds rounds fit `maxWork` (the inverse of blocksPerRound); negative if none does. */
export function longestInputWithin(hash: CHash, log2Rounds: number, maxWork: number): number {
  const blocks = Math.floor(maxWork / 2 ** log2Rounds / (hash.blockLen / 64));
  return blocks * hash.blockLen - hash.outputLen - 1 - hash.blockLen / 8;
}

/**
 * Reads the 12-character setting that phpass and Drupal share, bounds first: the count, and the
 * work of `shortestInput` bytes (0; Drupal's `U$` records always hash 32).
 */
export function parsePhpassSetting(stored: string, scheme: string, limits: StoredHashLimits, hash: CHash, shortestInput = 0): PhpassSetting {
  const match = SETTING.exec(stored);
  if (!match) throw new MalformedHashError(`${scheme} hash must start with a 12-character setting: id, itoa64 count, 8 itoa64 salt chars`);
  const [, , countChar, salt] = match as unknown as [string, string, string, string];
  const log2 = HASH64.indexOf(countChar);
  if (log2 < PHPASS_MIN_LOG2 || log2 > PHPASS_MAX_LOG2) throw new MalformedHashError(`${scheme} log2 rounds=${log2} is outside 7..30 (the original refuses it)`);
  // The same message and error as every other bound.
  parseBoundedInteger(String(log2), `${scheme} log2 rounds`, PHPASS_MIN_LOG2, limits.phpassMaxLog2Rounds);
  const maxInputBytes = longestInputWithin(hash, log2, limits.phpassMaxWork);
  if (maxInputBytes < shortestInput) {
    const blocks = blocksPerRound(hash, shortestInput);
    throw new HashParametersOutOfBoundsError(`${scheme} 2^${log2} rounds x ${blocks} blocks = ${2 ** log2 * blocks} is over ${limits.phpassMaxWork}`);
  }
  return { log2Rounds: log2, salt: utf8(salt), maxInputBytes };
}

/**
 * Refuses, before any hashing, a password longer than its record's rounds allow within
 * `phpassMaxWork`. A typed error, not a wrong password: login answers it like a record it cannot
 * verify (401 and `auth.stored_hash_rejected`), so the operator sees it. No password length is
 * in the message.
 */
export function assertWithinWork(setting: PhpassSetting, inputBytes: number, scheme: string): void {
  if (inputBytes > setting.maxInputBytes) {
    throw new HashParametersOutOfBoundsError(
      `${scheme} log2 rounds=${setting.log2Rounds} verifies passwords of at most ${setting.maxInputBytes} bytes within phpassMaxWork; this one is longer`,
    );
  }
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
  const setting = parsePhpassSetting(stored, 'phpass', limits, md5);
  const hashText = stored.slice(12);
  const digest = decodeHash64(hashText, 'phpass hash');
  return {
    scheme: 'phpass',
    memoryKiB: 1,
    cost: `log2=${setting.log2Rounds}`,
    digest,
    digestText: hashText,
    zeroDigestText: zeroHash64(16),
    async computeDigest(password) {
      const bytes = utf8Length(password);
      // The original's own limit first: over it, CheckPassword answers false.
      if (bytes > MAX_PASSWORD_BYTES) return NEVER_MATCHES;
      assertWithinWork(setting, bytes, 'phpass');
      return phpassStretch(md5, setting.salt, utf8(password), setting.log2Rounds);
    },
  };
}

export const phpassScheme: HashScheme = {
  matches: (stored) => stored.startsWith('$P$') || stored.startsWith('$H$'),
  parse: parsePhpass,
};
