import { utf8 } from '../encoding.js';
import type { ParsedHash } from './types.js';

/** scrypt's cost and inputs, read from any of the formats that store it. */
export interface ScryptRecord {
  N: number;
  r: number;
  p: number;
  /** The salt as the format feeds it to scrypt (decoded bytes, or the salt text's UTF-8). */
  salt: Uint8Array;
  /** The stored key; its length is scrypt's output length. */
  expected: Uint8Array;
  /** The key as stored, and how the format writes bytes (for the all-zero dummy of the same shape). */
  keyText: string;
  encode(bytes: Uint8Array): string;
}

/**
 * passlib's, Django's, Werkzeug's and Spring's scrypt differ only in how they write the fields:
 * once read, each verifies the same way, with the memory (128·N·r bytes) the limiter counts.
 */
export function scryptParsedHash(scheme: string, { N, r, p, salt, expected, keyText, encode }: ScryptRecord): ParsedHash {
  return {
    scheme,
    memoryKiB: Math.ceil((128 * N * r) / 1024),
    cost: `N=${N},r=${r},p=${p}`,
    digest: expected,
    digestText: keyText,
    zeroDigestText: encode(new Uint8Array(expected.length)),
    computeDigest: (password, { backend }) => backend.scrypt({ password: utf8(password), salt, N, r, p, dkLen: expected.length }),
  };
}
