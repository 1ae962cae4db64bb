import { md5 } from '@noble/hashes/legacy.js';
import { utf8 } from '../encoding.js';
import { MalformedHashError } from '../errors.js';
import { checkCryptSalt, cryptRefuses, cryptRound, decodePermutedHash64, NEVER_MATCHES, zeroHash64 } from './crypt-common.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * MD5-crypt, Poul-Henning Kamp's FreeBSD crypt (1994) as glibc, libxcrypt and OpenSSL implement it
 * (`openssl passwd -1`, `mkpasswd -m md5crypt`); Apache's `$apr1$` is the same algorithm with its
 * own magic (`htpasswd -m`, `openssl passwd -apr1`). Source read: libxcrypt `lib/crypt-md5.c`
 * and OpenSSL `apps/passwd.c` (md5crypt).
 *
 *   $1$<salt, 0..8 chars>$<22 hash64 chars>      $apr1$<salt>$<22 chars>
 *
 * 1000 fixed rounds, so no cost parameter to bound. The password is the raw UTF-8; `$1$` refuses
 * what crypt(3) refuses (cryptRefuses). APR's own MD5-crypt has no length limit, so `$apr1$`
 * refuses only NUL, which its C string cannot hold either.
 */
const MAGICS: Record<string, string> = { $1$: 'md5_crypt', $apr1$: 'apr_md5_crypt' };
const ROUNDS = 1000;
const DIGEST_TEXT_LENGTH = 22;
/** b64_from_24bit(final[0], final[6], final[12]) … (0, 0, final[11]), as the little-endian triples encodeHash64 packs. */
const ORDER = [12, 6, 0, 13, 7, 1, 14, 8, 2, 15, 9, 3, 5, 10, 4, 11];

export function md5Crypt(password: Uint8Array, magic: Uint8Array, salt: Uint8Array): Uint8Array {
  const alternate = md5.create().update(password).update(salt).update(password).digest();
  const context = md5.create().update(password).update(magic).update(salt);
  for (let left = password.length; left > 0; left -= 16) context.update(alternate.subarray(0, Math.min(left, 16)));
  // The original's quirk: a zero byte for each set bit of the length, else the first password byte.
  for (let bits = password.length; bits > 0; bits >>= 1) context.update(bits & 1 ? new Uint8Array(1) : password.subarray(0, 1));
  let final = context.digest();
  for (let i = 0; i < ROUNDS; i++) final = cryptRound(md5, i, password, salt, final);
  return final;
}

/** Parses `$1$salt$hash` or `$apr1$salt$hash`; `scheme` overrides the name (for `{CRYPT}`). */
export function parseMd5Crypt(stored: string, scheme?: string): ParsedHash {
  const magic = stored.startsWith('$apr1$') ? '$apr1$' : '$1$';
  const name = scheme ?? MAGICS[magic]!;
  const fields = stored.slice(magic.length).split('$');
  if (!stored.startsWith(magic) || fields.length !== 2) throw new MalformedHashError(`${name} hash must be ${magic}salt$hash`);
  const [saltText, hashText] = fields as [string, string];
  checkCryptSalt(saltText, 8, name);
  if (hashText.length !== DIGEST_TEXT_LENGTH) throw new MalformedHashError(`${name} hash must be ${DIGEST_TEXT_LENGTH} characters`);
  const digest = decodePermutedHash64(hashText, ORDER, `${name} hash`);
  const magicBytes = utf8(magic);
  const salt = utf8(saltText);
  const refuses = magic === '$1$' ? cryptRefuses : (password: string) => password.includes('\0');
  return {
    scheme: name,
    memoryKiB: 1,
    digest,
    digestText: hashText,
    zeroDigestText: zeroHash64(16),
    async computeDigest(password) {
      return refuses(password) ? NEVER_MATCHES : md5Crypt(utf8(password), magicBytes, salt);
    },
  };
}

export const md5CryptScheme: HashScheme = {
  matches: (stored) => stored.startsWith('$1$') || stored.startsWith('$apr1$'),
  parse: (stored) => parseMd5Crypt(stored),
};
