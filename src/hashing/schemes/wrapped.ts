import type { StoredHashLimits } from '../policy.js';
import { MalformedHashError, UnsupportedHashError } from '../errors.js';
import { formatArgon2Phc, parseArgon2Phc, type Argon2Hash } from './argon2-phc.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * A legacy record made memory-hard without its password: the legacy digest becomes the input of
 * argon2id at current parameters, and the legacy string keeps only its salt and parameters (its
 * digest zeroed, so nothing crackable is left):
 *
 *   $wrapped$argon2id$v=19$m=..,t=..,p=..$<salt>$<tag>$<legacy string with a zero digest>
 *
 * Verifying runs the legacy function, then argon2id over its digest. A good login replaces the
 * record with a plain argon2id hash of the password.
 */
export const WRAPPED_PREFIX = '$wrapped';
const ARGON2_FIELDS = 6; // '', argon2id, v=19, m=..,t=..,p=.., salt, tag

export function wrappedScheme(parseInner: (stored: string, limits: StoredHashLimits) => ParsedHash): HashScheme {
  return {
    matches: (stored) => stored.startsWith(`${WRAPPED_PREFIX}$`),
    parse(stored, limits) {
      const rest = stored.slice(WRAPPED_PREFIX.length);
      let separator = -1;
      for (let i = 0; i < ARGON2_FIELDS; i++) {
        separator = rest.indexOf('$', separator + 1);
        if (separator < 0) throw new MalformedHashError('wrapped hash must be $wrapped$<argon2id PHC>$<legacy hash>');
      }
      const outer = parseArgon2Phc(rest.slice(0, separator), limits);
      if (outer.algorithm !== 'argon2id') throw new MalformedHashError('wrapped hashes use argon2id');
      const innerStored = rest.slice(separator + 1);
      if (innerStored.startsWith(WRAPPED_PREFIX)) throw new MalformedHashError('wrapped hashes do not nest');
      const inner = parseInner(innerStored, limits);
      if (inner.digestText !== inner.zeroDigestText) throw new MalformedHashError('a wrapped legacy hash must not keep its digest');
      return {
        scheme: `wrapped_${inner.scheme}`,
        memoryKiB: Math.max(inner.memoryKiB, outer.memoryKiB),
        digest: outer.tag,
        digestText: rest.slice(rest.lastIndexOf('$', separator - 1) + 1, separator),
        zeroDigestText: '',
        async computeDigest(password, context) {
          const legacyDigest = await inner.computeDigest(password, context);
          return context.backend.argon2({ ...argon2Params(outer), password: legacyDigest, salt: outer.salt, tagLength: outer.tag.length });
        },
      };
    },
  };
}

function argon2Params(hash: Argon2Hash) {
  return { algorithm: hash.algorithm, version: hash.version, memoryKiB: hash.memoryKiB, passes: hash.passes, lanes: hash.lanes };
}

/** The legacy string with its digest zeroed, and the digest to feed argon2id. */
export function unwrapLegacyDigest(stored: string, parsed: ParsedHash): { head: string; digest: Uint8Array } {
  if (parsed.zeroDigestText === '' || !stored.endsWith(parsed.digestText)) {
    throw new UnsupportedHashError(`${parsed.scheme} records cannot be wrapped`);
  }
  return { head: stored.slice(0, stored.length - parsed.digestText.length) + parsed.zeroDigestText, digest: parsed.digest };
}

export function formatWrapped(outer: Argon2Hash, legacyHead: string): string {
  return `${WRAPPED_PREFIX}${formatArgon2Phc(outer)}$${legacyHead}`;
}
