import { sha256, sha512 } from '@noble/hashes/sha2.js';
import type { CHash } from '@noble/hashes/utils.js';
import { utf8 } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { checkCryptSalt, cryptRefuses, cryptRound, decodePermutedHash64, NEVER_MATCHES, runRounds, zeroHash64 } from './crypt-common.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * SHA-256-crypt and SHA-512-crypt, Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512"
 * (akkadia.org/drepper/SHA-crypt.txt), as glibc, libxcrypt (`lib/crypt-sha256.c`,
 * `crypt-sha512.c`) and OpenSSL (`apps/passwd.c`, shacrypt) implement it.
 *
 *   $5$[rounds=<N>$]<salt, 0..16 chars>$<43 hash64 chars>
 *   $6$[rounds=<N>$]<salt, 0..16 chars>$<86 hash64 chars>
 *
 * Without `rounds=`, 5000 rounds. glibc and OpenSSL clamp a requested N to 1000..999,999,999
 * and write the clamped value (`rounds=100` becomes `rounds=1000`); libxcrypt refuses such an N.
 * All of them truncate the salt to 16 characters and write the truncated one. So a stored N
 * outside that range, a zero-padded N or a longer salt is never written, and verifies under none
 * of them (they compare whole strings): refused here as malformed. Within the range, N is bounded
 * by `shaCryptMaxRounds` before any hashing.
 * The password is the raw UTF-8; what crypt(3) refuses never verifies (cryptRefuses: NUL, 512
 * bytes or more).
 */
interface Variant {
  scheme: string;
  hash: CHash;
  /** b64_from_24bit's byte triples, as the little-endian order encodeHash64 packs. */
  order: readonly number[];
}

/** Drepper's triples: group i takes bytes i, i+step, i+2·step, rotated by i mod 3; then the tail bytes. */
function cryptOrder(length: number, step: number, rotateLeft: boolean, tail: readonly number[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < step; i++) {
    const triple = [i, i + step, i + 2 * step];
    const shift = rotateLeft ? i % 3 : (3 - (i % 3)) % 3;
    const [b2, b1, b0] = [triple[shift % 3]!, triple[(shift + 1) % 3]!, triple[(shift + 2) % 3]!];
    order.push(b0, b1, b2);
  }
  order.push(...tail);
  if (new Set(order).size !== length) throw new Error('sha-crypt byte order is not a permutation');
  return order;
}

const VARIANTS: Record<string, Variant> = {
  // (alt[0], alt[10], alt[20]), (alt[21], alt[1], alt[11]), … then (0, alt[31], alt[30]).
  $5$: { scheme: 'sha256_crypt', hash: sha256, order: cryptOrder(32, 10, false, [30, 31]) },
  // (alt[0], alt[21], alt[42]), (alt[22], alt[43], alt[1]), … then (0, 0, alt[63]).
  $6$: { scheme: 'sha512_crypt', hash: sha512, order: cryptOrder(64, 21, true, [63]) },
};

export const SHA_CRYPT_DEFAULT_ROUNDS = 5000;
const MIN_ROUNDS = 1000;
const MAX_ROUNDS = 999_999_999;

/** `length` bytes of `block` repeated (Drepper's P and S sequences). */
function repeatTo(block: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += block.length) out.set(block.subarray(0, Math.min(block.length, length - i)), i);
  return out;
}

export async function shaCrypt(hash: CHash, password: Uint8Array, salt: Uint8Array, rounds: number): Promise<Uint8Array> {
  const size = hash.outputLen;
  const b = hash.create().update(password).update(salt).update(password).digest();
  const a = hash.create().update(password).update(salt);
  let left = password.length;
  for (; left > size; left -= size) a.update(b);
  a.update(b.subarray(0, left));
  for (let bits = password.length; bits > 0; bits >>= 1) a.update(bits & 1 ? b : password);
  let digest = a.digest();

  const dp = hash.create();
  for (let i = 0; i < password.length; i++) dp.update(password);
  const p = repeatTo(dp.digest(), password.length);
  const ds = hash.create();
  for (let i = 0; i < 16 + digest[0]!; i++) ds.update(salt);
  const s = repeatTo(ds.digest(), salt.length);

  await runRounds(rounds, (i) => {
    digest = cryptRound(hash, i, p, s, digest);
  });
  return digest;
}

/** Reads `rounds=N` as crypt writes it (absent: 5000), then bounds it. */
function parseRounds(text: string | undefined, scheme: string, limits: StoredHashLimits): number {
  // Nine digits at most: anything larger is clamped (OpenSSL, glibc) or refused (libxcrypt).
  if (text !== undefined && !/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new MalformedHashError(`${scheme} rounds must be written as crypt writes them (1000..999999999, no leading zero)`);
  }
  const rounds = text === undefined ? SHA_CRYPT_DEFAULT_ROUNDS : Number(text);
  if (rounds < MIN_ROUNDS || rounds > MAX_ROUNDS) {
    throw new MalformedHashError(`${scheme} rounds=${rounds} is never written: crypt clamps rounds to 1000..999999999`);
  }
  // The implicit 5000 too: a budget may allow fewer.
  if (rounds > limits.shaCryptMaxRounds) throw new HashParametersOutOfBoundsError(`${scheme} rounds=${rounds} is outside 1000..${limits.shaCryptMaxRounds}`);
  return rounds;
}

/** Parses `$5$…` or `$6$…`; `scheme` overrides the name (for `{CRYPT}`). */
export function parseShaCrypt(stored: string, limits: StoredHashLimits, scheme?: string): ParsedHash {
  const variant = VARIANTS[stored.slice(0, 3)];
  if (!variant) throw new MalformedHashError('SHA-crypt hashes begin with $5$ or $6$');
  const name = scheme ?? variant.scheme;
  const fields = stored.slice(3).split('$');
  const hasRounds = fields[0]!.startsWith('rounds=');
  if (fields.length !== (hasRounds ? 3 : 2)) throw new MalformedHashError(`${name} hash must be ${stored.slice(0, 3)}[rounds=N$]salt$hash`);
  const rounds = parseRounds(hasRounds ? fields[0]!.slice('rounds='.length) : undefined, name, limits);
  const [saltText, hashText] = fields.slice(hasRounds ? 1 : 0) as [string, string];
  checkCryptSalt(saltText, 16, name);
  const size = variant.hash.outputLen;
  const textLength = Math.ceil((size * 8) / 6);
  if (hashText.length !== textLength) throw new MalformedHashError(`${name} hash must be ${textLength} characters`);
  const digest = decodePermutedHash64(hashText, variant.order, `${name} hash`);
  const salt = utf8(saltText);
  return {
    scheme: name,
    memoryKiB: 1,
    cost: `rounds=${rounds}`,
    digest,
    digestText: hashText,
    zeroDigestText: zeroHash64(size),
    async computeDigest(password) {
      return cryptRefuses(password) ? NEVER_MATCHES : shaCrypt(variant.hash, utf8(password), salt, rounds);
    },
  };
}

export const shaCryptScheme: HashScheme = {
  matches: (stored) => stored.startsWith('$5$') || stored.startsWith('$6$'),
  parse: (stored, limits) => parseShaCrypt(stored, limits),
};
