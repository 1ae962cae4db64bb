import type { Argon2Algorithm, Argon2Version } from '../backends/types.js';
import { decodeBase64NoPad, encodeBase64NoPad, utf8 } from '../encoding.js';
import { HashParametersOutOfBoundsError, MalformedHashError, UnsupportedHashError } from '../errors.js';
import type { StoredHashLimits } from '../policy.js';
import { parseBoundedInteger } from './parse-integer.js';
import type { HashScheme, ParsedHash } from './types.js';

export interface Argon2Hash {
  algorithm: Argon2Algorithm;
  version: Argon2Version;
  memoryKiB: number;
  passes: number;
  lanes: number;
  salt: Uint8Array;
  tag: Uint8Array;
}

const ALGORITHMS: ReadonlySet<string> = new Set(['argon2d', 'argon2i', 'argon2id']);

/**
 * Parses `$argon2id$v=19$m=..,t=..,p=..$salt$tag` the way the reference decoder does, plus what
 * other writers emit: no `v=` (argon2 v1.0, i.e. 0x10) and m/t/p in any order (node-argon2 writes
 * `m,p,t`). Salt and tag are unpadded standard base64.
 */
export function parseArgon2Phc(stored: string, limits: StoredHashLimits): Argon2Hash {
  const fields = stored.split('$');
  // ['', alg, v=.., params, salt, tag] or without the version field.
  if (fields[0] !== '' || (fields.length !== 5 && fields.length !== 6)) {
    throw new MalformedHashError('argon2 hash must be $alg[$v=..]$m=..,t=..,p=..$salt$tag');
  }
  const algorithm = fields[1]!;
  if (!ALGORITHMS.has(algorithm)) throw new UnsupportedHashError(`unknown argon2 variant`);
  let version: Argon2Version = 0x10;
  let rest = fields.slice(2);
  if (fields.length === 6) {
    const v = fields[2]!;
    if (v === 'v=19') version = 0x13;
    else if (v === 'v=16') version = 0x10;
    else throw new MalformedHashError('argon2 version must be v=16 or v=19');
    rest = fields.slice(3);
  }
  const [paramText, saltText, tagText] = rest as [string, string, string];
  const params = new Map<string, string>();
  for (const pair of paramText.split(',')) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq) : '';
    if (key === 'data' || key === 'keyid') throw new UnsupportedHashError(`argon2 ${key}= parameters are not supported`);
    if (!['m', 't', 'p'].includes(key) || params.has(key)) throw new MalformedHashError('argon2 parameters must be m, t and p, once each');
    params.set(key, pair.slice(eq + 1));
  }
  if (params.size !== 3) throw new MalformedHashError('argon2 parameters must be m, t and p, once each');
  const lanes = parseBoundedInteger(params.get('p'), 'argon2 p', 1, limits.argon2MaxLanes);
  const passes = parseBoundedInteger(params.get('t'), 'argon2 t', 1, limits.argon2MaxPasses);
  const memoryKiB = parseBoundedInteger(params.get('m'), 'argon2 m', 8 * lanes, limits.argon2MaxMemoryKiB);
  if (memoryKiB * passes > limits.argon2MaxWork) {
    throw new HashParametersOutOfBoundsError(`argon2 m×t=${memoryKiB * passes} is over ${limits.argon2MaxWork} KiB-passes`);
  }

  let salt: Uint8Array;
  let tag: Uint8Array;
  try {
    salt = decodeBase64NoPad(saltText);
    tag = decodeBase64NoPad(tagText);
  } catch (cause) {
    throw new MalformedHashError('argon2 salt or tag is not unpadded base64', { cause });
  }
  if (salt.length < 8 || salt.length > limits.argon2MaxSaltBytes) {
    throw new HashParametersOutOfBoundsError(`argon2 salt must be 8..${limits.argon2MaxSaltBytes} bytes`);
  }
  if (tag.length < 4 || tag.length > limits.argon2MaxTagBytes) {
    throw new HashParametersOutOfBoundsError(`argon2 tag must be 4..${limits.argon2MaxTagBytes} bytes`);
  }
  return { algorithm: algorithm as Argon2Algorithm, version, memoryKiB, passes, lanes, salt, tag };
}

/** Writes the canonical form: `v=` always present, parameters in m,t,p order. */
export function formatArgon2Phc(hash: Argon2Hash): string {
  return (
    `$${hash.algorithm}$v=${hash.version}$m=${hash.memoryKiB},t=${hash.passes},p=${hash.lanes}` +
    `$${encodeBase64NoPad(hash.salt)}$${encodeBase64NoPad(hash.tag)}`
  );
}

/** A parsed argon2 hash whose password bytes come from `passwordBytes` (NFKC for ours, raw for Django's). */
export function argon2ParsedHash(
  hash: Argon2Hash,
  scheme: string,
  passwordBytes: 'normalised' | 'raw',
  stored: string,
): ParsedHash {
  return {
    scheme,
    memoryKiB: hash.memoryKiB,
    cost: `v=${hash.version},m=${hash.memoryKiB},t=${hash.passes},p=${hash.lanes}`,
    digest: hash.tag,
    digestText: stored.slice(stored.lastIndexOf('$') + 1),
    zeroDigestText: encodeBase64NoPad(new Uint8Array(hash.tag.length)),
    argon2: {
      algorithm: hash.algorithm,
      version: hash.version,
      memoryKiB: hash.memoryKiB,
      passes: hash.passes,
      lanes: hash.lanes,
      saltLength: hash.salt.length,
      tagLength: hash.tag.length,
    },
    computeDigest(password, { backend, normalise }) {
      return backend.argon2({
        algorithm: hash.algorithm,
        version: hash.version,
        memoryKiB: hash.memoryKiB,
        passes: hash.passes,
        lanes: hash.lanes,
        salt: hash.salt,
        tagLength: hash.tag.length,
        password: passwordBytes === 'normalised' ? normalise(password) : utf8(password),
      });
    },
  };
}

/**
 * Plain PHC argon2 strings are passlane's own: the password is NFKC-normalised before hashing.
 * One form per scheme, never both, so an NFD password can't match an NFC hash by retrying.
 */
export const argon2Scheme: HashScheme = {
  matches: (stored) => stored.startsWith('$argon2'),
  parse(stored, limits) {
    const hash = parseArgon2Phc(stored, limits);
    return argon2ParsedHash(hash, hash.algorithm, 'normalised', stored);
  },
};

export const RAW_ARGON2_PREFIX = '{ARGON2}';

/**
 * `{ARGON2}` + PHC: argon2 over the raw UTF-8 bytes, as OpenLDAP's argon2 module writes it and as
 * other argon2 apps hashed. Import stores foreign argon2 PHC strings this way, because their
 * authors did not normalise and a user who typed a decomposed accent must still get in.
 */
export const rawArgon2Scheme: HashScheme = {
  matches: (stored) => stored.startsWith(`${RAW_ARGON2_PREFIX}$argon2`),
  parse(stored, limits) {
    const hash = parseArgon2Phc(stored.slice(RAW_ARGON2_PREFIX.length), limits);
    return argon2ParsedHash(hash, 'argon2_raw', 'raw', stored);
  },
};
