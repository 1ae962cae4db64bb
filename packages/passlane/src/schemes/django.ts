import { md5 } from '@noble/hashes/legacy.js';
import { concatBytes, decodeBase64Padded, encodeBase64Padded, toHex, utf8 } from '../encoding.js';
import { MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { argon2ParsedHash, parseArgon2Phc } from './argon2-phc.js';
import { bcryptParsedHash, parseBcrypt } from './bcrypt.js';
import { pbkdf2, sha256, webDigest, type DigestName } from './digests.js';
import { assertScryptN, decodeLowerHex, decodeOrMalformed, decodePaddedBase64 } from './field-checks.js';
import { scryptParsedHash } from './scrypt-hash.js';
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

const PREFIXES = ['pbkdf2_sha256$', 'pbkdf2_sha1$', 'argon2$', 'bcrypt_sha256$', 'bcrypt$', 'scrypt$', 'sha1$', 'md5$'];

/**
 * identify_hasher's unsalted_md5 test is "32 characters without `$`", but only md5's lower-case
 * hexdigest ever verifies, so nothing else of that length is claimed as Django's.
 */
const BARE_MD5 = /^[0-9a-f]{32}$/;

function parseDjangoPbkdf2(algorithm: string, stored: string, limits: Parameters<HashScheme['parse']>[1]): ParsedHash {
  const { digest, length } = PBKDF2_DIGESTS[algorithm]!;
  const fields = stored.split('$');
  if (fields.length !== 4) throw new MalformedHashError(`${algorithm} hash must be ${algorithm}$iterations$salt$hash`);
  const [, iterationsText, salt, hashText] = fields as [string, string, string, string];
  const iterations = parseBoundedInteger(iterationsText, `${algorithm} iterations`, 1, limits.pbkdf2MaxIterations);
  if (salt.length === 0) throw new MalformedHashError(`${algorithm} salt is empty`);
  const expected = decodeOrMalformed(decodeBase64Padded, hashText, `${algorithm} hash is not base64`);
  if (expected.length !== length) throw new MalformedHashError(`${algorithm} hash must be ${length} bytes`);
  return {
    scheme: `django_${algorithm}`,
    memoryKiB: 1,
    cost: `i=${iterations}`,
    digest: expected,
    digestText: hashText,
    zeroDigestText: encodeBase64Padded(new Uint8Array(length)),
    // Django uses the salt string's own bytes, not a decoded salt.
    computeDigest: (password) => pbkdf2(digest, utf8(password), utf8(salt), iterations, length),
  };
}

const SCRYPT_KEY_BYTES = 64;

/**
 * `scrypt$<N>$<salt>$<r>$<p>$<base64 of 64 bytes>` (ScryptPasswordHasher, Django >= 4.0): N as
 * the number itself, hashlib.scrypt over the UTF-8 password and the salt string's UTF-8 bytes.
 */
function parseDjangoScrypt(stored: string, limits: StoredHashLimits): ParsedHash {
  const fields = stored.split('$');
  if (fields.length !== 6) throw new MalformedHashError('Django scrypt hash must be scrypt$N$salt$r$p$hash');
  const [, nText, salt, rText, pText, hashText] = fields as [string, string, string, string, string, string];
  const N = parseBoundedInteger(nText, 'Django scrypt N', 2, limits.scryptMaxN);
  assertScryptN(N, limits, 'Django scrypt');
  const r = parseBoundedInteger(rText, 'Django scrypt r', 1, limits.scryptMaxR);
  const p = parseBoundedInteger(pText, 'Django scrypt p', 1, limits.scryptMaxP);
  if (salt.length === 0) throw new MalformedHashError('Django scrypt salt is empty');
  const expected = decodePaddedBase64(hashText, 'Django scrypt hash');
  if (expected.length !== SCRYPT_KEY_BYTES) throw new MalformedHashError(`Django scrypt hash must be ${SCRYPT_KEY_BYTES} bytes`);
  return scryptParsedHash('django_scrypt', { N, r, p, salt: utf8(salt), expected, keyText: hashText, encode: encodeBase64Padded });
}

type LegacyDigest = 'md5' | 'sha1';
const LEGACY_HEX_LENGTH: Record<LegacyDigest, number> = { md5: 32, sha1: 40 };

async function legacyDigest(algorithm: LegacyDigest, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  // Web Crypto has SHA-1 but no MD5.
  return algorithm === 'md5' ? md5(message) : webDigest('SHA-1', message);
}

/**
 * The single-round digests of Django's first releases, all of hexdigest((salt + password).encode()):
 * `sha1$<salt>$<hex>`, `md5$<salt>$<hex>` (SHA1/MD5PasswordHasher), and with no salt
 * `sha1$$<hex>` (unsalted_sha1), `md5$$<hex>` or the bare hex (unsalted_md5).
 */
function parseLegacyDigest(algorithm: LegacyDigest, salt: string, hex: string): ParsedHash {
  if (hex.length !== LEGACY_HEX_LENGTH[algorithm]) throw new MalformedHashError(`Django ${algorithm} hash must be ${LEGACY_HEX_LENGTH[algorithm]} hex digits`);
  const expected = decodeLowerHex(hex, `Django ${algorithm} hash`);
  const saltBytes = utf8(salt);
  return {
    scheme: salt === '' ? `django_unsalted_${algorithm}` : `django_${algorithm}`,
    memoryKiB: 1,
    fastDigest: true,
    digest: expected,
    digestText: hex,
    zeroDigestText: '0'.repeat(hex.length),
    computeDigest: (password) => legacyDigest(algorithm, concatBytes(saltBytes, utf8(password))),
  };
}

function parseSaltedLegacy(algorithm: LegacyDigest, stored: string): ParsedHash {
  // verify() re-encodes with the salt from split('$', 2): a `$` in the hash field never matches.
  const fields = stored.split('$');
  if (fields.length !== 3) throw new MalformedHashError(`Django ${algorithm} hash must be ${algorithm}$salt$hex`);
  const [, salt, hex] = fields as [string, string, string];
  // An empty salt is the unsalted form (`sha1$$`, `md5$$`): the same digest, with no salt bytes.
  return parseLegacyDigest(algorithm, salt, hex);
}

export const djangoScheme: HashScheme = {
  matches: (stored) => PREFIXES.some((prefix) => stored.startsWith(prefix)) || BARE_MD5.test(stored),
  parse(stored, limits) {
    if (BARE_MD5.test(stored)) return parseLegacyDigest('md5', '', stored);
    const algorithm = stored.slice(0, stored.indexOf('$'));
    switch (algorithm) {
      case 'scrypt':
        return parseDjangoScrypt(stored, limits);
      case 'sha1':
      case 'md5':
        return parseSaltedLegacy(algorithm, stored);
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
