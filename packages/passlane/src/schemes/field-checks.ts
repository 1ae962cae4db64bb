import { decodeBase64Padded } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import type { DigestName } from './digests.js';

/** Parsing and bounds checks the stored-hash formats share. */

export const DIGEST_BYTES: Readonly<Record<DigestName, number>> = { 'SHA-1': 20, 'SHA-256': 32, 'SHA-512': 64 };

/** Lower-case hex, as Python's hexdigest()/.hex() and Spring's Hex.encode write it; anything else never verified there. */
export function decodeLowerHex(text: string, what: string): Uint8Array<ArrayBuffer> {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) throw new MalformedHashError(`${what} is not lower-case hex`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A stored field through `decode`, its failure a MalformedHashError with `message`. */
export function decodeOrMalformed(decode: (text: string) => Uint8Array<ArrayBuffer>, text: string, message: string): Uint8Array<ArrayBuffer> {
  try {
    return decode(text);
  } catch (cause) {
    throw new MalformedHashError(message, { cause });
  }
}

export const decodePaddedBase64 = (text: string, what: string): Uint8Array<ArrayBuffer> =>
  decodeOrMalformed(decodeBase64Padded, text, `${what} is not padded base64`);

/**
 * PBKDF2 costs its iterations once per output block, so a format that takes its output length
 * from the stored value (ASP.NET v3, Spring) is bounded on iterations x blocks: the same
 * pbkdf2MaxIterations budget a one-block Django or passlib hash gets.
 */
export function assertPbkdf2Work(iterations: number, keyLength: number, digest: DigestName, limits: StoredHashLimits, name: string): void {
  const work = iterations * Math.ceil(keyLength / DIGEST_BYTES[digest]);
  if (work > limits.pbkdf2MaxIterations) {
    throw new HashParametersOutOfBoundsError(`${name} iterations x output blocks = ${work} is over ${limits.pbkdf2MaxIterations}`);
  }
}

/** scrypt's N read as a number (not its log): a power of two from 2 up to the bound. */
export function assertScryptN(N: number, limits: StoredHashLimits, name: string): void {
  if (N > limits.scryptMaxN) throw new HashParametersOutOfBoundsError(`${name} N=${N} is over ${limits.scryptMaxN}`);
  if (N < 2 || !Number.isInteger(Math.log2(N))) throw new MalformedHashError(`${name} N must be a power of two above 1`);
}
