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
  const by = input.reason === 'email_changed' ? 'owner' : 'undo_link';
  const changed = deps.accountEvents.of('email.changed', input.userId, { from: input.from, to: input.to, by });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const outcome = await deps.emailSwitches.switchEmail({ userId: input.userId, from: input.from, fromKey, to: input.to, toKey, now: deps.now() }, changed);
    if (outcome === 'changed') continue;
    if (outcome !== 'switched') {
      deps.audit({ type: 'auth.email_change_failed', userId: input.userId, reason: outcome });
      return outcome;
    }
    deps.audit({ type: 'auth.email_changed', userId: input.userId, fromFingerprint: fromKey, toFingerprint: toKey });
    await moveIdentities(deps, { userId: input.userId, fromKey, to: input.to, toKey });
    await endOtherSessions(deps, { accountKey: fromKey, userId: input.userId, reason: input.reason });
    await deps.oneTimeTokens.discardAll(fromKey);
    return 'switched';
  }
  deps.audit({ type: 'auth.email_change_failed', userId: input.userId, reason: 'changed' });
  throw new AccountChangedError();
}

/**
 * The account's identities at providers follow it: each lookup names the new address (only while
 * it is still this account's), the list moves to the new key. Each step can be taken again; a
 * lookup left naming the old address is released at its next sign-in, never made an account of
 * again (features/federation/resolve-identity.ts).
 */
async function moveIdentities(deps: AddressSwitchDependencies, input: { userId: string; fromKey: string; to: string; toKey: string }): Promise<void> {
  const identities = await deps.identities.list(input.fromKey, input.userId);
  if (identities.length === 0) return;
  for (const identity of identities) {
    if (await deps.identities.repoint(identity.provider, identity.subject, input.userId, { email: input.to, accountKey: input.toKey })) {
      await deps.identities.record(input.toKey, input.userId, identity);
    }
  }
  await deps.identities.forget(input.fromKey, input.userId);
}
