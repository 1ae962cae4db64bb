import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, encodeBase64Padded, toHex, utf8 } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { argon2ParsedHash, parseArgon2Phc } from './argon2-phc.js';
import { bcryptParsedHash, parseBcrypt } from './bcrypt.js';
import { pbkdf2, type DigestName } from './digests.js';
import { assertPbkdf2Work, decodeLowerHex, decodePaddedBase64, DIGEST_BYTES } from './field-checks.js';
import { scryptParsedHash } from './scrypt-hash.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * Spring Security's DelegatingPasswordEncoder: `{id}` + what the encoder registered under that id
 * writes. The ids and encoders are those of PasswordEncoderFactories.createDelegatingPasswordEncoder
 * (Spring Security 5.0 to 7.x); every encoder reads the password as UTF-8, without normalising.
 * Ids are lower-case and case-sensitive: `{SHA256}` and the other upper-case names are LDAP's (or
 * Spring's MessageDigestPasswordEncoder), handled elsewhere.
 *
 * `{pbkdf2}` is the one encoder whose string does not carry its parameters. `{pbkdf2}` and
 * `{pbkdf2@SpringSecurity_v5_8}` mean what Spring's factory registers under those ids; any other
 * configuration is named in the id, which passlane reads and Spring never writes:
 *
 *   {pbkdf2@<SHA1|SHA256|SHA512>,<iterations>[,<hash bits>][,base64]}<hex of salt || hash>
 *
 * hash bits default to the PRF's own width (what Spring's (secret, saltLength, iterations,
 * algorithm) constructor uses); write them for encoders built with the older hashWidth
 * constructor, e.g. `{pbkdf2@SHA1,185000,256}`. `base64` is for setEncodeHashAsBase64(true). The
 * salt is whatever precedes the hash. So each record names exactly one PBKDF2 to run.
 */
const PBKDF2_PRFS: Readonly<Record<string, DigestName>> = { SHA1: 'SHA-1', SHA256: 'SHA-256', SHA512: 'SHA-512' };
const PBKDF2_SCHEMES: Readonly<Record<DigestName, string>> = {
  'SHA-1': 'spring_pbkdf2_sha1',
  'SHA-256': 'spring_pbkdf2_sha256',
  'SHA-512': 'spring_pbkdf2_sha512',
};
/** Spring's own id for its 5.8 defaults; every factory since 5.8 registers it. */
const SPRING_V5_8 = 'SpringSecurity_v5_8';
const MAX_HASH_BITS = 4096;

interface Pbkdf2Params {
  digest: DigestName;
  iterations: number;
  hashBytes: number;
  /** Fixed salt length of Spring's factory encoders; annotated ones take what precedes the hash. */
  saltBytes?: number;
  encoding: 'hex' | 'base64';
}

/**
 * `{pbkdf2}`: Pbkdf2PasswordEncoder() before 5.8 and defaultsForSpringSecurity_v5_5() since, alike:
 * PBKDF2WithHmacSHA1, 185000 iterations, 256-bit hash, 8-byte salt, hex.
 */
const FACTORY_PBKDF2: Pbkdf2Params = { digest: 'SHA-1', iterations: 185_000, hashBytes: 32, saltBytes: 8, encoding: 'hex' };
/** `{pbkdf2@SpringSecurity_v5_8}`: defaultsForSpringSecurity_v5_8(), PBKDF2WithHmacSHA256, 310000, 16-byte salt. */
const FACTORY_PBKDF2_V5_8: Pbkdf2Params = { digest: 'SHA-256', iterations: 310_000, hashBytes: 32, saltBytes: 16, encoding: 'hex' };

function readPbkdf2Annotation(annotation: string | undefined, limits: StoredHashLimits): Pbkdf2Params {
  if (annotation === undefined) return FACTORY_PBKDF2;
  if (annotation === SPRING_V5_8) return FACTORY_PBKDF2_V5_8;
  const fields = annotation.split(',');
  const encoding = fields[fields.length - 1] === 'base64' ? 'base64' : 'hex';
  if (encoding === 'base64') fields.pop();
  if (fields.length < 2 || fields.length > 3) {
    throw new UnsupportedHashError('Spring pbkdf2 id must be {pbkdf2}, {pbkdf2@SpringSecurity_v5_8} or {pbkdf2@<PRF>,<iterations>[,<hash bits>][,base64]}');
  }
  const [prf, iterationsText, bitsText] = fields as [string, string, string | undefined];
  const digest = PBKDF2_PRFS[prf];
  if (!digest) throw new UnsupportedHashError('Spring pbkdf2 PRF must be SHA1, SHA256 or SHA512');
  const iterations = parseBoundedInteger(iterationsText, 'Spring pbkdf2 iterations', 1, limits.pbkdf2MaxIterations);
  const bits = bitsText === undefined ? DIGEST_BYTES[digest] * 8 : parseBoundedInteger(bitsText, 'Spring pbkdf2 hash bits', 8, MAX_HASH_BITS);
  if (bits % 8 !== 0) throw new MalformedHashError('Spring pbkdf2 hash bits must be a multiple of 8');
  return { digest, iterations, hashBytes: bits / 8, encoding };
}

function parsePbkdf2(annotation: string | undefined, payload: string, limits: StoredHashLimits): ParsedHash {
  const params = readPbkdf2Annotation(annotation, limits);
  const { digest, iterations, hashBytes, encoding } = params;
  assertPbkdf2Work(iterations, hashBytes, digest, limits, 'Spring pbkdf2');
  const blob = encoding === 'hex' ? decodeLowerHex(payload, 'Spring pbkdf2 hash') : decodePaddedBase64(payload, 'Spring pbkdf2 hash');
  const saltBytes = blob.length - hashBytes;
  if (params.saltBytes !== undefined ? saltBytes !== params.saltBytes : saltBytes < 1) {
    const salt = params.saltBytes === undefined ? 'a salt' : `a ${params.saltBytes}-byte salt`;
    throw new MalformedHashError(`Spring pbkdf2 hash must be ${salt} and a ${hashBytes}-byte hash`);
  }
  const salt = blob.slice(0, saltBytes);
  const zeroed = blob.slice();
  zeroed.fill(0, saltBytes);
  return {
    scheme: PBKDF2_SCHEMES[digest],
    memoryKiB: 1,
    // PBKDF2 runs its iterations once per output block.
    cost: `i=${iterations},bytes=${hashBytes}`,
    digest: blob.slice(saltBytes),
    // The hash is not a field of its own (base64 mixes it with the salt): the payload is the digest text.
    digestText: payload,
    zeroDigestText: encoding === 'hex' ? toHex(zeroed) : encodeBase64Padded(zeroed),
    // PBEKeySpec(password chars, salt || secret, ...): SunJCE encodes the chars as UTF-8; the secret is empty by default.
    computeDigest: (password) => pbkdf2(digest, utf8(password), salt, iterations, hashBytes),
  };
}

/**
 * `{scrypt}$<hex(log2 N << 16 | r << 8 | p)>$<base64 salt>$<base64 key>` (SCryptPasswordEncoder,
 * BouncyCastle SCrypt over the UTF-8 password and the decoded salt; key length = the stored key's).
 */
function parseScrypt(payload: string, limits: StoredHashLimits): ParsedHash {
  const fields = payload.split('$');
  if (fields.length !== 4 || fields[0] !== '') throw new MalformedHashError('Spring scrypt hash must be $params$salt$key');
  const [, paramsText, saltText, keyText] = fields as [string, string, string, string];
  // Long.toString(params, 16): lower-case, no leading zeros; log2 N, r and p take 16, 8 and 8 bits.
  if (!/^[1-9a-f][0-9a-f]{0,7}$/.test(paramsText)) throw new MalformedHashError('Spring scrypt parameters are not canonical hex');
  const params = parseInt(paramsText, 16);
  const logN = Math.floor(params / 0x10000);
  const r = (params >> 8) & 0xff;
  const p = params & 0xff;
  if (logN < 1 || r < 1 || p < 1) throw new MalformedHashError('Spring scrypt N, r and p must be above 1, 0 and 0');
  if (2 ** logN > limits.scryptMaxN || r > limits.scryptMaxR || p > limits.scryptMaxP) {
    throw new HashParametersOutOfBoundsError(`Spring scrypt N=2^${logN}, r=${r}, p=${p} is over N<=${limits.scryptMaxN}, r<=${limits.scryptMaxR}, p<=${limits.scryptMaxP}`);
  }
  const N = 2 ** logN;
  const salt = decodePaddedBase64(saltText, 'Spring scrypt salt');
  const expected = decodePaddedBase64(keyText, 'Spring scrypt key');
  if (salt.length < 1 || salt.length > 1024) throw new MalformedHashError('Spring scrypt salt must be 1..1024 bytes');
  if (expected.length < 16 || expected.length > 64) throw new MalformedHashError('Spring scrypt key must be 16..64 bytes');
  return scryptParsedHash('spring_scrypt', { N, r, p, salt, expected, keyText, encode: encodeBase64Padded });
}

const STANDARD_SALT_BYTES = 8;
const STANDARD_ROUNDS = 1024;

/**
 * `{sha256}<hex(salt(8) || digest)>` (StandardPasswordEncoder): digest = SHA-256 applied 1024
 * times, starting from salt || secret || UTF-8 password; the secret is empty by default. 1024
 * rounds of an unkeyed hash: not flagged fastDigest, but still cheap to attack at GPU rates.
 */
function parseStandard(payload: string): ParsedHash {
  const blob = decodeLowerHex(payload, 'Spring sha256 hash');
  if (blob.length !== STANDARD_SALT_BYTES + 32) throw new MalformedHashError('Spring sha256 hash must be an 8-byte salt and a 32-byte digest');
  const salt = blob.slice(0, STANDARD_SALT_BYTES);
  return {
    scheme: 'spring_sha256',
    memoryKiB: 1,
    digest: blob.slice(STANDARD_SALT_BYTES),
    digestText: payload,
    zeroDigestText: toHex(salt) + '0'.repeat(64),
    // Synchronous noble SHA-256: 1024 awaits on Web Crypto would cost more than the hashing.
    async computeDigest(password) {
      let value: Uint8Array = concatBytes(salt, utf8(password));
      for (let i = 0; i < STANDARD_ROUNDS; i++) value = sha256(value);
      return value;
    },
  };
}

const SPRING_ID = /^\{(bcrypt|pbkdf2|scrypt|argon2|sha256)(?:@([^{}]*))?\}/;

export const springScheme: HashScheme = {
  matches: (stored) => SPRING_ID.test(stored),
  parse(stored, limits) {
    const [prefix, id, annotation] = SPRING_ID.exec(stored) as unknown as [string, string, string | undefined];
    const payload = stored.slice(prefix.length);
    if (annotation !== undefined && id !== 'pbkdf2' && !(annotation === SPRING_V5_8 && (id === 'scrypt' || id === 'argon2'))) {
      throw new UnsupportedHashError(`Spring id {${id}@…} is not one Spring's factory registers`);
    }
    switch (id) {
      case 'bcrypt':
        // BCryptPasswordEncoder: $2a$ by default, $2b$/$2y$ when configured; 72-byte key like any bcrypt.
        return bcryptParsedHash(parseBcrypt(payload, limits), 'spring_bcrypt', utf8, 'password');
      case 'pbkdf2':
        return parsePbkdf2(annotation, payload, limits);
      case 'scrypt':
        return parseScrypt(payload, limits);
      case 'argon2': {
        // Argon2PasswordEncoder (BouncyCastle): a PHC string over the UTF-8 password, like OpenLDAP's {ARGON2}.
        return argon2ParsedHash(parseArgon2Phc(payload, limits), 'spring_argon2', 'raw', stored);
      }
      default:
        return parseStandard(payload);
    }
  },
};
