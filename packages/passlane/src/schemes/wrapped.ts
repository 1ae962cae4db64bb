import type { StoredHashLimits } from '../policy.js';
import { MalformedHashError, UnsupportedHashError } from '../errors.js';
import { formatArgon2Phc, parseArgon2Phc, type Argon2Hash } from './argon2-phc.js';
import type { HashScheme, ParsedHash } from './types.js';

/**
 * A legacy record made memory-hard without its password: the legacy digest becomes the input of
 * argon2id at current parameters, and the legacy string keeps only its salt and parameters (its
 * digest zeroed, so nothing crackable is left):
 *
 *   $wrapped$<legacy string with a zero digest>$argon2id$v=19$m=..,t=..,p=..$<salt>$<tag>
 *
 * The argon2id tag comes last, as in every other format, so the pepper envelope seals it the same
 * way. Verifying runs the legacy function, then argon2id over its digest; a good login replaces
 * the record with a plain argon2id hash of the password.
 */
export const WRAPPED_PREFIX = '$wrapped$';
/** argon2id, v=19, m=..,t=..,p=.., salt, tag */
const OUTER_FIELDS = 5;

interface WrappedParts {
  outer: Argon2Hash;
  /** The legacy string, digest zeroed. */
  innerStored: string;
}

function splitWrapped(stored: string, limits: StoredHashLimits): WrappedParts {
  const fields = stored.slice(WRAPPED_PREFIX.length).split('$');
  if (!stored.startsWith(WRAPPED_PREFIX) || fields.length <= OUTER_FIELDS) {
    throw new MalformedHashError('wrapped hash must be $wrapped$<legacy hash>$<argon2id PHC>');
  }
  const outer = parseArgon2Phc(`$${fields.slice(-OUTER_FIELDS).join('$')}`, limits);
  if (outer.algorithm !== 'argon2id' || outer.version !== 0x13) throw new MalformedHashError('wrapped hashes use argon2id v=19');
  return { outer, innerStored: fields.slice(0, -OUTER_FIELDS).join('$') };
}

export function wrappedScheme(parseInner: (stored: string, limits: StoredHashLimits) => ParsedHash): HashScheme {
  return {
    matches: (stored) => stored.startsWith(WRAPPED_PREFIX),
    parse(stored, limits) {
      const { outer, innerStored } = splitWrapped(stored, limits);
      if (innerStored.startsWith(WRAPPED_PREFIX)) throw new MalformedHashError('wrapped hashes do not nest');
      const inner = parseInner(innerStored, limits);
      if (inner.digestText !== inner.zeroDigestText) throw new MalformedHashError('a wrapped legacy hash must not keep its digest');
      const digestText = stored.slice(stored.lastIndexOf('$') + 1);
      return {
        scheme: `wrapped_${inner.scheme}`,
        memoryKiB: Math.max(inner.memoryKiB, outer.memoryKiB),
        // Both functions run: the legacy one's cost, then the outer argon2id's.
        cost: `${inner.cost === undefined ? '' : `${inner.cost} `}+ argon2id v=${outer.version},m=${outer.memoryKiB},t=${outer.passes},p=${outer.lanes}`,
        ...(inner.inputLimitBytes !== undefined && { inputLimitBytes: inner.inputLimitBytes }),
        ...(inner.fastDigest && { wrapsFastDigest: true }),
        // The outer argon2id's parameters, for describe() and inventories; the scheme keeps
        // needsRehash true until a login replaces the record.
        argon2: {
          algorithm: outer.algorithm,
          version: outer.version,
          memoryKiB: outer.memoryKiB,
          passes: outer.passes,
          lanes: outer.lanes,
          saltLength: outer.salt.length,
          tagLength: outer.tag.length,
        },
        digest: outer.tag,
        digestText,
        zeroDigestText: 'A'.repeat(digestText.length),
        async computeDigest(password, context) {
          const legacyDigest = await inner.computeDigest(password, context);
          const { algorithm, version, memoryKiB, passes, lanes } = outer;
          return context.backend.argon2({ algorithm, version, memoryKiB, passes, lanes, password: legacyDigest, salt: outer.salt, tagLength: outer.tag.length });
        },
      };
    },
  };
}

/** The legacy string with its digest zeroed, and the digest to feed argon2id. */
export function unwrapLegacyDigest(stored: string, parsed: ParsedHash): { head: string; digest: Uint8Array } {
  if (parsed.zeroDigestText === '' || !stored.endsWith(parsed.digestText)) {
    throw new UnsupportedHashError(`${parsed.scheme} records cannot be wrapped`);
  }
  return { head: stored.slice(0, stored.length - parsed.digestText.length) + parsed.zeroDigestText, digest: parsed.digest };
}

export function formatWrapped(outer: Argon2Hash, legacyHead: string): string {
  return `${WRAPPED_PREFIX}${legacyHead}${formatArgon2Phc(outer)}`;
}
