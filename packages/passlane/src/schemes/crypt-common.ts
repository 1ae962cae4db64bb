import type { CHash } from '@noble/hashes/utils.js';
import { utf8Length } from '../encoding.js';
import { MalformedHashError } from '../errors.js';

/**
 * What the crypt(3)-family formats (MD5-crypt, SHA-crypt, phpass, Drupal) share: the "hash64"
 * alphabet and its little-endian packing, the salt rule, and a loop that lets the event loop run.
 */

/** crypt(3)'s alphabet, `.` = 0 … `z` = 63; phpass calls it itoa64. */
export const HASH64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HASH64_LOOKUP = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < HASH64.length; i++) table[HASH64.charCodeAt(i)] = i;
  return table;
})();

/**
 * phpass's encode64 (and crypt's b64_from_24bit over consecutive triples): each 3 bytes become a
 * little-endian 24-bit word, written low 6 bits first; a final 1 or 2 bytes give 2 or 3 characters.
 */
export function encodeHash64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const rest = bytes.length - i;
    const word = bytes[i]! | ((rest > 1 ? bytes[i + 1]! : 0) << 8) | ((rest > 2 ? bytes[i + 2]! : 0) << 16);
    const chars = rest >= 3 ? 4 : rest + 1;
    for (let c = 0; c < chars; c++) out += HASH64[(word >> (6 * c)) & 63];
  }
  return out;
}

/**
 * The inverse of encodeHash64. Strict: only the alphabet, and no bits set past the last byte,
 * since the originals compare strings and a non-canonical text never equals what they write.
 */
export function decodeHash64(text: string, what: string): Uint8Array {
  if (text.length % 4 === 1) throw new MalformedHashError(`${what} has an impossible length`);
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  for (let i = 0, o = 0; i < text.length; i += 4) {
    const chars = Math.min(4, text.length - i);
    let word = 0;
    for (let c = 0; c < chars; c++) {
      const code = text.charCodeAt(i + c);
      const value = code < 128 ? HASH64_LOOKUP[code]! : -1;
      if (value < 0) throw new MalformedHashError(`${what} is not in crypt's ./0-9A-Za-z alphabet`);
      word |= value << (6 * c);
    }
    const bytes = chars - 1;
    for (let b = 0; b < bytes; b++) out[o++] = (word >> (8 * b)) & 0xff;
    if (word >> (8 * bytes) !== 0) throw new MalformedHashError(`${what} is not canonical (bits set past its last byte)`);
  }
  return out;
}

/**
 * crypt's digests are written with their bytes reordered (b64_from_24bit over fixed triples):
 * `order` lists the digest's byte indices in the order encodeHash64 packs them.
 */
export function decodePermutedHash64(text: string, order: readonly number[], what: string): Uint8Array {
  const packed = decodeHash64(text, what);
  if (packed.length !== order.length) throw new MalformedHashError(`${what} must be ${order.length} bytes`);
  const digest = new Uint8Array(order.length);
  order.forEach((index, k) => (digest[index] = packed[k]!));
  return digest;
}

/** The zero digest of `length` bytes as hash64 text: all `.`. */
export const zeroHash64 = (length: number): string => encodeHash64(new Uint8Array(length));

/**
 * Salts as crypt(3) reads them: everything up to the next `$`, of which MD5-crypt uses 8 and
 * SHA-crypt 16 characters. Generators write the hash64 alphabet; glibc and OpenSSL also take
 * other printable ASCII (`openssl passwd -salt 'sa!lt'`), so that is accepted too. A longer salt
 * is never written (crypt writes the truncated one), so it is refused rather than truncated.
 */
export function checkCryptSalt(salt: string, maxLength: number, what: string): void {
  if (salt.length > maxLength) throw new MalformedHashError(`${what} salt is longer than ${maxLength} characters (crypt truncates it)`);
  if (!/^[\x21-\x23\x25-\x7e]*$/.test(salt)) throw new MalformedHashError(`${what} salt must be printable ASCII`);
}

/**
 * Round i of MD5-crypt's stretching, which SHA-crypt kept: the previous digest and the password
 * alternate, with the salt on rounds not divisible by 3 and the password again on those not
 * divisible by 7. `password` and `salt` are what each format feeds (SHA-crypt: its P and S sequences).
 */
export function cryptRound(hash: CHash, i: number, password: Uint8Array, salt: Uint8Array, previous: Uint8Array): Uint8Array<ArrayBuffer> {
  const round = hash.create();
  round.update(i & 1 ? password : previous);
  if (i % 3) round.update(salt);
  if (i % 7) round.update(password);
  round.update(i & 1 ? previous : password);
  return round.digest();
}

/** A digest of no bytes: compared with any stored digest it never matches (for inputs the original refuses). */
export const NEVER_MATCHES: Uint8Array = new Uint8Array(0);

/**
 * Passwords crypt(3) never verifies: one containing NUL (C strings: glibc would read only what
 * precedes it, so "pw\0anything" would pass for "pw"), and one of 512 bytes or more, which
 * libxcrypt (crypt(3) on Debian, Fedora, RHEL 8+) refuses (CRYPT_MAX_PASSPHRASE_SIZE). That cap
 * also bounds the work of a SHA-crypt round, which hashes the password twice.
 */
export const CRYPT_MAX_PASSWORD_BYTES = 511;
export const cryptRefuses = (password: string): boolean => password.includes('\0') || utf8Length(password) > CRYPT_MAX_PASSWORD_BYTES;

/**
 * Rounds per slice before giving the event loop a turn (SHA-512 in JavaScript: about 30 ms for a
 * short password, 200 ms at 511 bytes), so a verify at the bound does not stall every other
 * request on the process. The CPU time is the same; setTimeout exists on every runtime.
 */
export const ROUNDS_PER_SLICE = 8192;

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Runs `round(i)` for i in [0, rounds), yielding to the event loop between slices. */
export async function runRounds(rounds: number, round: (i: number) => void): Promise<void> {
  for (let start = 0; start < rounds; start += ROUNDS_PER_SLICE) {
    if (start > 0) await nextTask();
    const end = Math.min(rounds, start + ROUNDS_PER_SLICE);
    for (let i = start; i < end; i++) round(i);
  }
}
