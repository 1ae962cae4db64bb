import { decodeAdaptedBase64, decodeBase64NoPad, encodeBase64NoPad, encodeBase64Padded, utf8 } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { bcryptParsedHash, parseBcrypt } from './bcrypt.js';
import { hmacSha256, pbkdf2, sha256, type DigestName } from './digests.js';
import { decodeOrMalformed } from './field-checks.js';
import { scryptParsedHash } from './scrypt-hash.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * passlib's modular-crypt formats. passlib encodes text passwords as UTF-8 and does not
 * normalise, so these verify the raw bytes.
 */
const PBKDF2_IDENTS: Record<string, { digest: DigestName; length: number; scheme: string }> = {
  '$pbkdf2-sha256$': { digest: 'SHA-256', length: 32, scheme: 'passlib_pbkdf2_sha256' },
  '$pbkdf2-sha512$': { digest: 'SHA-512', length: 64, scheme: 'passlib_pbkdf2_sha512' },
  '$pbkdf2$': { digest: 'SHA-1', length: 20, scheme: 'passlib_pbkdf2_sha1' },
};

/** `$pbkdf2-sha256$rounds$salt$checksum`; salt and checksum in adapted base64, salt used as raw bytes. */
function parsePbkdf2(ident: string, stored: string, limits: StoredHashLimits): ParsedHash {
  const { digest, length, scheme } = PBKDF2_IDENTS[ident]!;
  const fields = stored.slice(ident.length).split('$');
  if (fields.length !== 3) throw new MalformedHashError(`${scheme} hash must be ${ident}rounds$salt$checksum`);
  const [roundsText, saltText, checksumText] = fields as [string, string, string];
  const rounds = parseBoundedInteger(roundsText, `${scheme} rounds`, 1, limits.pbkdf2MaxIterations);
  const salt = decodeOrMalformed(decodeAdaptedBase64, saltText, `${scheme} salt is not valid base64`);
  const expected = decodeOrMalformed(decodeAdaptedBase64, checksumText, `${scheme} checksum is not valid base64`);
  if (salt.length === 0 || salt.length > 1024) throw new MalformedHashError(`${scheme} salt must be 1..1024 bytes`);
  if (expected.length !== length) throw new MalformedHashError(`${scheme} checksum must be ${length} bytes`);
  return {
    scheme,
    memoryKiB: 1,
    cost: `i=${rounds}`,
    digest: expected,
    digestText: checksumText,
    zeroDigestText: encodeBase64NoPad(new Uint8Array(length)),
    computeDigest: (password) => pbkdf2(digest, utf8(password), salt, rounds, length),
  };
}

/** `$scrypt$ln=16,r=8,p=1$salt$checksum`; unpadded standard base64, raw salt bytes. */
function parseScrypt(stored: string, limits: StoredHashLimits): ParsedHash {
  const match = /^\$scrypt\$ln=([0-9]+),r=([0-9]+),p=([0-9]+)\$([^$]+)\$([^$]+)$/.exec(stored);
  if (!match) throw new MalformedHashError('scrypt hash must be $scrypt$ln=..,r=..,p=..$salt$checksum');
  const [, lnText, rText, pText, saltText, checksumText] = match as unknown as [string, string, string, string, string, string];
  const logN = parseBoundedInteger(lnText, 'scrypt ln', 1, Math.log2(limits.scryptMaxN));
  const r = parseBoundedInteger(rText, 'scrypt r', 1, limits.scryptMaxR);
  const p = parseBoundedInteger(pText, 'scrypt p', 1, limits.scryptMaxP);
  const salt = decodeOrMalformed(decodeBase64NoPad, saltText, 'scrypt salt is not valid base64');
  const expected = decodeOrMalformed(decodeBase64NoPad, checksumText, 'scrypt checksum is not valid base64');
  if (salt.length === 0 || salt.length > 1024) throw new MalformedHashError('scrypt salt must be 1..1024 bytes');
  if (expected.length < 16 || expected.length > 64) throw new HashParametersOutOfBoundsError('scrypt checksum must be 16..64 bytes');
  const N = 2 ** logN;
  return scryptParsedHash('passlib_scrypt', { N, r, p, salt, expected, keyText: checksumText, encode: encodeBase64NoPad });
}

/**
 * `$bcrypt-sha256$v=2,t=2b,r=12$salt$digest` (passlib >= 1.7.3): bcrypt of
 * base64(HMAC-SHA256(key = the 22-character salt string, message = password)).
 * v1, `$bcrypt-sha256$2a,12$salt$digest`: bcrypt of base64(SHA256(password)).
 */
function parseBcryptSha256(stored: string, limits: StoredHashLimits): ParsedHash {
  const v2 = /^\$bcrypt-sha256\$v=2,t=(2b),r=([0-9]{1,2})\$([^$]{22})\$([^$]{31})$/.exec(stored);
  const v1 = v2 ? null : /^\$bcrypt-sha256\$(2[ab]),([0-9]{1,2})\$([^$]{22})\$([^$]{31})$/.exec(stored);
  const match = v2 ?? v1;
  if (!match) throw new MalformedHashError('bcrypt-sha256 hash must be $bcrypt-sha256$v=2,t=2b,r=NN$salt$digest');
  const [, minor, roundsText, salt, digest] = match as unknown as [string, string, string, string, string];
  const bcrypt = parseBcrypt(`$${minor}$${roundsText.padStart(2, '0')}$${salt}${digest}`, limits);
  const saltKey = utf8(salt);
  return bcryptParsedHash(bcrypt, 'passlib_bcrypt_sha256', async (password) => {
    const digestBytes = v2 ? await hmacSha256(saltKey, utf8(password)) : await sha256(utf8(password));
    return utf8(encodeBase64Padded(digestBytes));
  }, 'digest');
}

export const passlibScheme: HashScheme = {
  matches: (stored) => /^\$(pbkdf2(-sha256|-sha512)?|scrypt|bcrypt-sha256)\$/.test(stored),
  parse(stored, limits) {
    const ident = stored.slice(0, stored.indexOf('$', 1) + 1);
    if (ident in PBKDF2_IDENTS) return parsePbkdf2(ident, stored, limits);
    if (ident === '$scrypt$') return parseScrypt(stored, limits);
    if (ident === '$bcrypt-sha256$') return parseBcryptSha256(stored, limits);
    throw new UnsupportedHashError('unknown passlib hash');
  },
};
