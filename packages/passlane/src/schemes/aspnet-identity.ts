import { encodeBase64Padded, utf8 } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { pbkdf2, type DigestName } from './digests.js';
import { assertPbkdf2Work, decodePaddedBase64 } from './field-checks.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * ASP.NET Core Identity's PasswordHasher<TUser>: Convert.ToBase64String of a byte blob, PBKDF2
 * over Encoding.UTF8 of the password (KeyDerivation.Pbkdf2).
 *   v2: 0x00 | salt(16) | subkey(32)                 HMAC-SHA1, 1000 iterations
 *   v3: 0x01 | prf | iterations | saltLength | salt | subkey, the three uint32 big-endian;
 *       prf 0 HMAC-SHA1, 1 HMAC-SHA256 (.NET <= 6 default, 10000), 2 HMAC-SHA512 (.NET >= 7, 100000)
 * The digest is not a trailing field, so the whole blob is the digest text and wrapping keeps it
 * with the subkey zeroed: salt and parameters stay readable, nothing crackable is left.
 */
const PRFS: readonly DigestName[] = ['SHA-1', 'SHA-256', 'SHA-512'];
const SCHEMES: Readonly<Record<DigestName, string>> = {
  'SHA-1': 'aspnet_identity_v3_sha1',
  'SHA-256': 'aspnet_identity_v3_sha256',
  'SHA-512': 'aspnet_identity_v3_sha512',
};

const V2_SALT = 16;
const V2_SUBKEY = 32;
const V2_ITERATIONS = 1000;
const V3_HEADER = 13;
/** VerifyHashedPasswordV3 refuses a salt or subkey under 128 bits. */
const V3_MIN_BYTES = 16;
/** .NET reads the uint32 as an int: 2^31 and above are negative and fail. */
const INT32_MAX = 2 ** 31 - 1;

const readUint32 = (bytes: Uint8Array, offset: number): number =>
  ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!;

interface Layout {
  scheme: string;
  digest: DigestName;
  iterations: number;
  salt: Uint8Array<ArrayBuffer>;
  /** Where the subkey starts in the blob; it runs to the end. */
  subkeyOffset: number;
}

function readV3(blob: Uint8Array<ArrayBuffer>, limits: StoredHashLimits): Layout {
  if (blob.length < V3_HEADER + 2 * V3_MIN_BYTES) throw new MalformedHashError('ASP.NET Identity v3 hash is too short');
  const prf = readUint32(blob, 1);
  const digest = PRFS[prf];
  if (digest === undefined) throw new UnsupportedHashError('ASP.NET Identity v3 hash names an unknown PRF');
  const iterations = readUint32(blob, 5);
  const saltLength = readUint32(blob, 9);
  if (iterations < 1 || iterations > INT32_MAX) throw new MalformedHashError('ASP.NET Identity v3 iteration count is not a positive int');
  if (iterations > limits.pbkdf2MaxIterations) {
    throw new HashParametersOutOfBoundsError(`ASP.NET Identity v3 iterations=${iterations} is outside 1..${limits.pbkdf2MaxIterations}`);
  }
  const subkeyLength = blob.length - V3_HEADER - saltLength;
  if (saltLength < V3_MIN_BYTES || subkeyLength < V3_MIN_BYTES) {
    throw new MalformedHashError('ASP.NET Identity v3 salt and subkey must be at least 16 bytes each');
  }
  assertPbkdf2Work(iterations, subkeyLength, digest, limits, 'ASP.NET Identity v3');
  return { scheme: SCHEMES[digest], digest, iterations, salt: blob.slice(V3_HEADER, V3_HEADER + saltLength), subkeyOffset: V3_HEADER + saltLength };
}

function readV2(blob: Uint8Array<ArrayBuffer>): Layout {
  if (blob.length !== 1 + V2_SALT + V2_SUBKEY) throw new MalformedHashError('ASP.NET Identity v2 hash must be 49 bytes');
  return { scheme: 'aspnet_identity_v2', digest: 'SHA-1', iterations: V2_ITERATIONS, salt: blob.slice(1, 1 + V2_SALT), subkeyOffset: 1 + V2_SALT };
}

/**
 * v3 blobs start 01 00 00 00 0X (base64 `AQAAAA`) and hold at least 45 bytes (60 characters);
 * v2 ones are 49 bytes starting 00 (68 characters, `A` then `A`..`P`). Nothing else is claimed,
 * so shorter or differently led base64 (DES crypt, bare digests) stays free for other formats.
 */
const V3_TEXT = /^AQAAAA[A-Za-z0-9+/]{54,}={0,2}$/;
const V2_TEXT = /^A[A-P][A-Za-z0-9+/]{64}==$/;

export const aspnetIdentityScheme: HashScheme = {
  matches: (stored) => stored.length % 4 === 0 && (V3_TEXT.test(stored) || V2_TEXT.test(stored)),
  parse(stored, limits): ParsedHash {
    const blob = decodePaddedBase64(stored, 'ASP.NET Identity hash');
    const layout = blob[0] === 0x01 ? readV3(blob, limits) : readV2(blob);
    const { digest, iterations, salt, subkeyOffset } = layout;
    const expected = blob.slice(subkeyOffset);
    const zeroed = blob.slice();
    zeroed.fill(0, subkeyOffset);
    return {
      scheme: layout.scheme,
      memoryKiB: 1,
      // PBKDF2 runs its iterations once per output block.
      cost: `i=${iterations},bytes=${expected.length}`,
      digest: expected,
      digestText: stored,
      zeroDigestText: encodeBase64Padded(zeroed),
      computeDigest: (password) => pbkdf2(digest, utf8(password), salt, iterations, expected.length),
    };
  },
};
