import { decodeBase64Padded } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import type { DigestName } from './digests.js';

/** Helpers shared by the framework formats (Werkzeug, Django's legacy hashers, ASP.NET, Spring). */

export const DIGEST_BYTES: Readonly<Record<DigestName, number>> = { 'SHA-1': 20, 'SHA-256': 32, 'SHA-512': 64 };

/** Lower-case hex, as Python's hexdigest()/.hex() and Spring's Hex.encode write it; anything else never verified there. */
export function decodeLowerHex(text: string, what: string): Uint8Array<ArrayBuffer> {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) throw new MalformedHashError(`${what} is not lower-case hex`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function decodePaddedBase64(text: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    return decodeBase64Padded(text);
  } catch (cause) {
    throw new MalformedHashError(`${what} is not padded base64`, { cause });
  }
}

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

/** Memory one scrypt verify takes (128·N·r bytes), for the limiter. */
export const scryptMemoryKiB = (N: number, r: number): number => Math.ceil((128 * N * r) / 1024);

export async function webDigest(name: 'SHA-1' | 'SHA-256', message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(name, message));
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
