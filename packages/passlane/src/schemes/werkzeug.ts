import { toHex, utf8 } from '../encoding.js';
import { MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { pbkdf2, type DigestName } from './digests.js';
import { assertScryptN, decodeLowerHex, DIGEST_BYTES } from './field-checks.js';
import { scryptParsedHash } from './scrypt-hash.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * Werkzeug's generate_password_hash (Flask): `<method>$<salt>$<hex>`. The salt string's UTF-8
 * bytes are the salt and the password's UTF-8 bytes the input; check_password_hash compares the
 * hex as text, so only lower-case hex of the right length ever verified.
 *   pbkdf2:<hash>:<iterations>$salt$hex   hashlib.pbkdf2_hmac, key length = the hash's size
 *   scrypt:<N>:<r>:<p>$salt$hex           hashlib.scrypt, 64-byte key (Werkzeug >= 2.3)
 */
const DIGESTS: Readonly<Record<string, DigestName>> = { sha1: 'SHA-1', sha256: 'SHA-256', sha512: 'SHA-512' };

const SCRYPT_KEY_BYTES = 64;

function parsed(scheme: string, cost: string, hex: string, expected: Uint8Array, computeDigest: ParsedHash['computeDigest']): ParsedHash {
  return { scheme, memoryKiB: 1, cost, digest: expected, digestText: hex, zeroDigestText: toHex(new Uint8Array(expected.length)), computeDigest };
}

function parsePbkdf2(args: string[], salt: string, hex: string, limits: StoredHashLimits): ParsedHash {
  if (args.length === 1) {
    // Werkzeug fills in its own DEFAULT_PBKDF2_ITERATIONS, which every release changed (1000 in
    // 0.9, 1000000 in 3.1): the string alone does not say what it means.
    throw new UnsupportedHashError('Werkzeug pbkdf2 hash has no iterations; write the ones the app used: pbkdf2:<hash>:<iterations>$salt$hex');
  }
  if (args.length !== 2) throw new MalformedHashError('Werkzeug pbkdf2 hash must be pbkdf2:<hash>:<iterations>$salt$hex');
  const [hashName, iterationsText] = args as [string, string];
  const digest = DIGESTS[hashName];
  if (!digest) throw new UnsupportedHashError('Werkzeug pbkdf2 hash must use sha1, sha256 or sha512');
  const iterations = parseBoundedInteger(iterationsText, 'Werkzeug pbkdf2 iterations', 1, limits.pbkdf2MaxIterations);
  const expected = decodeLowerHex(hex, 'Werkzeug pbkdf2 hash');
  const length = DIGEST_BYTES[digest];
  if (expected.length !== length) throw new MalformedHashError(`Werkzeug pbkdf2:${hashName} hash must be ${length} bytes`);
  const saltBytes = utf8(salt);
  return parsed(`werkzeug_pbkdf2_${hashName}`, `i=${iterations}`, hex, expected, (password) => pbkdf2(digest, utf8(password), saltBytes, iterations, length));
}

function parseScrypt(args: string[], salt: string, hex: string, limits: StoredHashLimits): ParsedHash {
  if (args.length !== 3) throw new MalformedHashError('Werkzeug scrypt hash must be scrypt:<N>:<r>:<p>$salt$hex');
  const [nText, rText, pText] = args as [string, string, string];
  const N = parseBoundedInteger(nText, 'Werkzeug scrypt N', 2, limits.scryptMaxN);
  assertScryptN(N, limits, 'Werkzeug scrypt');
  const r = parseBoundedInteger(rText, 'Werkzeug scrypt r', 1, limits.scryptMaxR);
  const p = parseBoundedInteger(pText, 'Werkzeug scrypt p', 1, limits.scryptMaxP);
  const expected = decodeLowerHex(hex, 'Werkzeug scrypt hash');
  if (expected.length !== SCRYPT_KEY_BYTES) throw new MalformedHashError(`Werkzeug scrypt hash must be ${SCRYPT_KEY_BYTES} bytes`);
  return scryptParsedHash('werkzeug_scrypt', { N, r, p, salt: utf8(salt), expected, keyText: hex, encode: toHex });
}

export const werkzeugScheme: HashScheme = {
  matches: (stored) => /^(pbkdf2|scrypt):/.test(stored),
  parse(stored, limits) {
    // check_password_hash splits on the first two `$`: the salt never holds one, and hex never does.
    const fields = stored.split('$');
    if (fields.length !== 3) throw new MalformedHashError('Werkzeug hash must be <method>$<salt>$<hex>');
    const [method, salt, hex] = fields as [string, string, string];
    // gen_salt refuses a length below 1, and Werkzeug < 2.3 refused an empty pbkdf2 salt.
    if (salt === '') throw new MalformedHashError('Werkzeug hash salt is empty');
    const [kind, ...args] = method.split(':');
    return kind === 'pbkdf2' ? parsePbkdf2(args, salt, hex, limits) : parseScrypt(args, salt, hex, limits);
  },
};
