import type { PasswordHasher } from 'passlane/common';

/** Plain argon2 PHC strings: passlane's own; with wrapped records, what a pepper can seal. */
const SEALABLE_SCHEMES: ReadonlySet<string> = new Set(['argon2id', 'argon2i', 'argon2d']);

export type RehashPlan =
  | { action: 'wrap' }
  | { action: 'rotate' }
  | { action: 'none'; reason: 'up_to_date' | 'already_wrapped' | 'left_for_login' };

/**
 * What the rehash job does with one stored value, decided from parsing alone (no hashing, no
 * key). Throws the hasher's ERR_HASH_* errors for a value it can't parse.
 *
 * - under a pepper, a record sealed with an older key, or an unsealed plain argon2 or wrapped
 *   record, is (re)sealed under the current key: rotatePepper needs no password and no argon2 run;
 * - otherwise a record that needs rehashing is wrapped (argon2id over its legacy digest; sealed
 *   at once when a pepper is configured);
 * - wrapped records, and peppered records under the current key with older parameters, are left
 *   for the next good login, the only moment the password is there to hash afresh.
 */
/** Whether the record belongs to the job's first pass: a fast digest, or one wrapped already. */
export function isFastDigestRecord(hasher: Pick<PasswordHasher, 'describe'>, stored: string): boolean {
  const { fastDigest, wrapsFastDigest } = hasher.describe(stored);
  return fastDigest === true || wrapsFastDigest === true;
}

export function planRehashAction(
  hasher: Pick<PasswordHasher, 'describe' | 'needsRehash'>,
  stored: string,
  currentPepperKeyId: string | undefined,
): RehashPlan {
  const { scheme, pepperKeyId } = hasher.describe(stored);
  const wrapped = scheme.startsWith('wrapped_');
  if (currentPepperKeyId !== undefined && pepperKeyId !== currentPepperKeyId && (pepperKeyId !== undefined || wrapped || SEALABLE_SCHEMES.has(scheme))) {
    return { action: 'rotate' };
  }
  if (wrapped) return { action: 'none', reason: 'already_wrapped' };
  if (pepperKeyId !== undefined) {
    // Peppered and current (or no keys here to rotate with): can't be wrapped, only re-hashed.
    return hasher.needsRehash(stored) ? { action: 'none', reason: 'left_for_login' } : { action: 'none', reason: 'up_to_date' };
  }
  return hasher.needsRehash(stored) ? { action: 'wrap' } : { action: 'none', reason: 'up_to_date' };
}
