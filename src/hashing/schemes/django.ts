import { decodeBase64Padded, encodeBase64Padded, toHex, utf8 } from '../encoding.js';
import { MalformedHashError, UnsupportedHashError } from '../errors.js';
import { argon2ParsedHash, parseArgon2Phc } from './argon2-phc.js';
import { bcryptParsedHash, parseBcrypt } from './bcrypt.js';
import { pbkdf2, sha256, type DigestName } from './digests.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * Django's `django.contrib.auth.hashers` formats (`algorithm$...`). Django feeds its hashers the
 * password's UTF-8 bytes (force_bytes) without normalising, so these verify the raw bytes.
 */
const PBKDF2_DIGESTS: Record<string, { digest: DigestName; length: number }> = {
  pbkdf2_sha256: { digest: 'SHA-256', length: 32 },
  pbkdf2_sha1: { digest: 'SHA-1', length: 20 },
};

const PREFIXES = ['pbkdf2_sha256$', 'pbkdf2_sha1$', 'argon2$', 'bcrypt_sha256$', 'bcrypt$'];

function parseDjangoPbkdf2(algorithm: string, stored: string, limits: Parameters<HashScheme['parse']>[1]): ParsedHash {
  const { digest, length } = PBKDF2_DIGESTS[algorithm]!;
  const fields = stored.split('$');
  if (fields.length !== 4) throw new MalformedHashError(`${algorithm} hash must be ${algorithm}$iterations$salt$hash`);
  const [, iterationsText, salt, hashText] = fields as [string, string, string, string];
  const iterations = parseBoundedInteger(iterationsText, `${algorithm} iterations`, 1, limits.pbkdf2MaxIterations);
  if (salt.length === 0) throw new MalformedHashError(`${algorithm} salt is empty`);
  let expected: Uint8Array;
  try {
    expected = decodeBase64Padded(hashText);
  } catch (cause) {
    throw new MalformedHashError(`${algorithm} hash is not base64`, { cause });
  }
  if (expected.length !== length) throw new MalformedHashError(`${algorithm} hash must be ${length} bytes`);
  return {
    scheme: `django_${algorithm}`,
    memoryKiB: 1,
    digest: expected,
    digestText: hashText,
    zeroDigestText: encodeBase64Padded(new Uint8Array(length)),
    // Django uses the salt string's own bytes, not a decoded salt.
    computeDigest: (password) => pbkdf2(digest, utf8(password), utf8(salt), iterations, length),
  };
}

export const djangoScheme: HashScheme = {
  matches: (stored) => PREFIXES.some((prefix) => stored.startsWith(prefix)),
  parse(stored, limits) {
    const algorithm = stored.slice(0, stored.indexOf('$'));
    switch (algorithm) {
      case 'pbkdf2_sha256':
      case 'pbkdf2_sha1':
        return parseDjangoPbkdf2(algorithm, stored, limits);
      case 'argon2': {
        // `argon2` + argon2-cffi's PHC string, which begins with `$`.
        const phc = parseArgon2Phc(stored.slice('argon2'.length), limits);
        return argon2ParsedHash(phc, 'django_argon2', 'raw', stored);
      }
      case 'bcrypt_sha256': {
        // `bcrypt_sha256$` + bcrypt of the hex SHA-256 of the password (so no 72-byte truncation).
        const bcrypt = parseBcrypt(stored.slice('bcrypt_sha256$'.length), limits);
        return bcryptParsedHash(bcrypt, 'django_bcrypt_sha256', async (password) => utf8(toHex(await sha256(utf8(password)))), 'digest');
      }
      case 'bcrypt': {
        const bcrypt = parseBcrypt(stored.slice('bcrypt$'.length), limits);
        return bcryptParsedHash(bcrypt, 'django_bcrypt', utf8, 'password');
      }
      default:
        throw new UnsupportedHashError('unknown Django hash algorithm');
    }
  },
};
