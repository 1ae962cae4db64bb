import type { Actor } from '../../accounts/audit-events.js';
import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import type { MfaChange } from '../../mail/account-mail.js';
import type { StoredMfa } from '../../storage/mfa-store.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { findAccount } from './find-account.js';
import { mailFactorChange } from './mail-account-change.js';
import { changedBy } from './changed-by.js';
import type { AccountEvent, ChangedBy } from '../../events/account-event.js';

/** A factor an operator may remove: TOTP, the recovery codes, one passkey (by credential id), or all of them. */
export type FactorToRemove = 'totp' | 'recovery_codes' | { passkey: string } | 'all';

/** Writes lost to a concurrent change of the account's factors before giving up (each re-reads). */
const MAX_ATTEMPTS = 3;

/**
 * The support path for an owner who lost every factor, or who is locked out by an attacker's
 * passkey: the operator removes it (after checking who asks: the operator's process, not ours).
 * The stores' conditional writes, as the owner's own removals: TOTP only if its secret is the one
 * read, a passkey only while it is there; the last factor takes the recovery codes with it; `all`
 * deletes the factors item and the passkeys' lookups. With no factor left, the password alone
 * signs in. `removed` false: it was not there. The owner is mailed, in the factor-change mails.
 */
export async function removeFactor(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor; factor: FactorToRemove }): Promise<{ removed: boolean }> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const kind = typeof input.factor === 'object' ? 'passkey' : input.factor;
  let removed = false;
  for (let attempt = 1; ; attempt++) {
    const factors = await deps.mfa.read(accountKey);
    const mine = factors !== undefined && factors.userId === user.userId ? factors : undefined;
    const outcome = await removeOnce(deps, { accountKey, userId: user.userId, by: changedBy(input.actor) }, mine, input.factor);
    if (outcome !== 'lost') {
      removed = outcome;
      break;
    }
    if (attempt >= MAX_ATTEMPTS) throw new TemporarilyUnavailableError(1);
  }
  deps.audit({ type: 'auth.factor_removed_by_operator', userId: user.userId, factor: kind, removed, actor: input.actor });
  if (removed) await mailFactorChange(deps, user.email, MAIL_OF[kind]);
  return { removed };
}

const MAIL_OF: Readonly<Record<'totp' | 'recovery_codes' | 'passkey' | 'all', MfaChange>> = {
  totp: 'totp_removed',
  recovery_codes: 'recovery_codes_removed',
  passkey: 'passkey_removed',
  all: 'factors_removed',
};

/**
 * One try: true removed, false not there, 'lost' a condition failed (the factors changed since the
 * read). Each factor removed is a `factor.removed` event (recovery codes are no factor of their own).
 */
async function removeOnce(
  deps: AccountLifecycleDependencies,
  account: { accountKey: string; userId: string; by: ChangedBy },
  factors: StoredMfa | undefined,
  factor: FactorToRemove,
): Promise<boolean | 'lost'> {
  const { accountKey, userId, by } = account;
  const removedTotp = () => deps.accountEvents.of('factor.removed', userId, { factor: 'totp', by });
  const removedPasskey = (credentialId: string) => deps.accountEvents.of('factor.removed', userId, { factor: 'passkey', credentialId, by });
  if (factors === undefined) return false;
  if (factor === 'all') {
    const removed: AccountEvent[] = [...(factors.totpSecret !== undefined ? removedTotp() : []), ...[...factors.passkeys.keys()].flatMap(removedPasskey)];
    await Promise.all([...factors.passkeys.keys()].map((credentialId) => deps.passkeys.deleteLookup(credentialId, accountKey)));
    await deps.mfa.deleteFactors(accountKey, userId, removed);
    return factors.totpSecret !== undefined || factors.passkeys.size > 0 || factors.recoveryCodes.length > 0;
  }
  if (factor === 'recovery_codes') {
    if (factors.recoveryCodes.length === 0) return false;
    return (await deps.mfa.removeRecoveryCodes(accountKey)) || 'lost';
  }
  if (factor === 'totp') {
    if (factors.totpSecret === undefined) return false;
    return (await deps.mfa.removeTotp(accountKey, factors.totpSecret, factors.passkeys.size === 0, removedTotp())) || 'lost';
  }
  if (!factors.passkeys.has(factor.passkey)) return false;
  const lastFactor = factors.totpSecret === undefined && factors.passkeys.size === 1;
  if (!(await deps.passkeys.remove(accountKey, factor.passkey, lastFactor, removedPasskey(factor.passkey)))) return 'lost';
  await deps.passkeys.deleteLookup(factor.passkey, accountKey);
  return true;
}
