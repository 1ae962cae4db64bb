import { md5 } from '@noble/hashes/legacy.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { toHex, utf8, utf8Length } from '../encoding.js';
import { MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { decodeHash64, NEVER_MATCHES, zeroHash64 } from './crypt-common.js';
import { assertWithinWork, parsePhpassSetting, phpassStretch } from './phpass.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * Drupal 7's `$S$`: phpass's stretching over SHA-512, cut to DRUPAL_HASH_LENGTH = 55 characters.
 * Source read: `includes/password.inc` of Drupal 7.105 (_password_crypt, user_check_password).
 *
 *   $S$<log2 rounds char><8 salt chars><first 43 itoa64 chars of the 86 encoding SHA-512>
 *
 * The 43 characters carry the first 32 bytes of the digest and 2 bits of the 33rd; the digest
 * here is those 33 bytes, the last masked to its 2 bits. _password_crypt refuses passwords over
 * 512 bytes (a DoS guard since 7.34); they never verify here either. The rounds and the password
 * are bounded by their work as phpass's are (phpass.ts).
 *
 * `U$S$…` is what Drupal 7's user_update_7000 made of Drupal 6's unsalted MD5 hashes: the
 * `$S$` hash of the lower-case hex MD5 of the password (user_check_password strips the `U` and
 * hashes md5($password)).
 */
const HASH_LENGTH = 55;
const TEXT_LENGTH = HASH_LENGTH - 12;
/** 43 characters × 6 bits = 258 bits: 32 bytes and 2 bits. */
const DIGEST_BYTES = 33;
const MAX_PASSWORD_BYTES = 512;
const MD5_HEX_BYTES = 32;

function truncated(digest: Uint8Array): Uint8Array {
  const out = digest.slice(0, DIGEST_BYTES);
  out[DIGEST_BYTES - 1]! &= 0x03;
  return out;
}

function parseDrupal(stored: string, limits: StoredHashLimits): ParsedHash {
  const updated = stored.startsWith('U$');
  const scheme = updated ? 'drupal7_sha512_md5' : 'drupal7_sha512';
  const hash = updated ? stored.slice(1) : stored;
  if (hash.length !== HASH_LENGTH) throw new MalformedHashError(`${scheme} hash must be ${HASH_LENGTH} characters`);
  // `U$` records hash the 32-byte hex MD5, whatever the password: bounded for that.
  const setting = parsePhpassSetting(hash, scheme, limits, sha512, updated ? MD5_HEX_BYTES : 0);
  const hashText = hash.slice(12);
  // A 44th character of zero bits makes the 43 a whole number of bytes; every 43-char text is canonical.
  const digest = decodeHash64(`${hashText}.`, `${scheme} hash`);
  return {
    scheme,
    memoryKiB: 1,
    cost: `log2=${setting.log2Rounds}`,
    digest,
    digestText: hashText,
    zeroDigestText: zeroHash64(DIGEST_BYTES).slice(0, TEXT_LENGTH),
    async computeDigest(password) {
      // The 512-byte guard sees the hex MD5 (32 bytes) for `U$` records, so it never refuses those.
      if (!updated) {
        const bytes = utf8Length(password);
        if (bytes > MAX_PASSWORD_BYTES) return NEVER_MATCHES;
        assertWithinWork(setting, bytes, scheme);
      }
      const input = updated ? utf8(toHex(md5(utf8(password)))) : utf8(password);
      return truncated(await phpassStretch(sha512, setting.salt, input, setting.log2Rounds));
    },
  };
}

export const drupalScheme: HashScheme = {
  matches: (stored) => stored.startsWith('$S$') || stored.startsWith('U$S$'),
  parse: parseDrupal,
};
