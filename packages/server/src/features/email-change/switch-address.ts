import { AccountChangedError } from '../../accounts/errors.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import type { AddressSwitchDependencies } from './dependencies.js';

/** Switches lost to a concurrent change of the account (each reads again) before giving up. */
const MAX_ATTEMPTS = 3;

/**
 * Moves the account from `from` to `to` (storage/email-switch-store.ts: the account item, its
 * factors and its passkeys' lookups, conditionally), then ends every session and forgets every
 * device of the account and voids its one-time links (README.md here: they are keyed by the old
 * address's fingerprint). `taken`: the new address has an account; `gone`: this account is not
 * at `from` any more. A concurrent change of the account (a password change, a code used) makes
 * it read again and retry; past the attempts, AccountChangedError.
 */
export async function switchAddress(
  deps: AddressSwitchDependencies,
  input: { userId: string; from: string; to: string; reason: 'email_changed' | 'email_change_undone' },
): Promise<'switched' | 'taken' | 'gone'> {
  const fromKey = deps.fingerprint(input.from);
  const toKey = deps.fingerprint(input.to);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const outcome = await deps.emailSwitches.switchEmail({ userId: input.userId, from: input.from, fromKey, to: input.to, toKey, now: deps.now() });
    if (outcome === 'changed') continue;
    if (outcome !== 'switched') {
      deps.audit({ type: 'auth.email_change_failed', userId: input.userId, reason: outcome });
      return outcome;
    }
    deps.audit({ type: 'auth.email_changed', userId: input.userId, fromFingerprint: fromKey, toFingerprint: toKey });
    await endOtherSessions(deps, { accountKey: fromKey, userId: input.userId, reason: input.reason });
    await deps.oneTimeTokens.discardAll(fromKey);
    return 'switched';
  }
  deps.audit({ type: 'auth.email_change_failed', userId: input.userId, reason: 'changed' });
  throw new AccountChangedError();
}
