import { WRAPPED_PREFIX } from '../hashing/schemes/wrapped.js';

/**
 * `v=19,m=..,t=..,p=..` of a wrapped record's outer argon2id, in describe()'s spelling, for the
 * inventory (describe reports parameters of plain argon2 only). Call it on values describe()
 * has already accepted; undefined for anything else.
 */
export function wrappedOuterParameters(stored: string): string | undefined {
  if (!stored.startsWith(`${WRAPPED_PREFIX}$argon2id$`)) return undefined;
  const match = /^\$wrapped\$argon2id\$v=(\d+)\$(m=\d+,t=\d+,p=\d+)\$/.exec(stored);
  return match ? `v=${match[1]},${match[2]}` : undefined;
}
