import { PasskeyNotFoundError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { mailMfaChange } from '../mfa/mail-mfa-change.js';
import { configuredRelyingParty } from './configured.js';
import type { PasskeyDependencies } from './dependencies.js';
import { passkeyView, type PasskeyView } from './passkey-view.js';

/** GET /passkeys: the caller's passkeys, oldest first. */
export async function listPasskeys(deps: PasskeyDependencies, input: { caller: AuthenticatedSession }): Promise<{ passkeys: PasskeyView[] }> {
  configuredRelyingParty(deps);
  const { caller } = input;
  const factors = await deps.mfa.read(caller.accountKey);
  const passkeys = [...(factors?.passkeys ?? [])].map(([id, passkey]) => passkeyView(id, passkey));
  return { passkeys: passkeys.sort((a, b) => a.createdAt.localeCompare(b.createdAt)) };
}

/**
 * PATCH /passkeys/{id} { name }: a new name, with a recent login that used a factor, as every
 * change to a factor: the name is what the owner tells their passkeys apart by, and one renamed
 * by a stranger could pass for the owner's own.
 */
export async function renamePasskey(deps: PasskeyDependencies, input: { caller: AuthenticatedSession; id: string; name: string }): Promise<{ passkey: PasskeyView }> {
  configuredRelyingParty(deps);
  const { caller } = input;
  if (!(await deps.passkeys.rename(caller.accountKey, input.id, input.name))) throw new PasskeyNotFoundError();
  const passkey = (await deps.mfa.read(caller.accountKey))?.passkeys.get(input.id);
  if (passkey === undefined) throw new PasskeyNotFoundError();
  deps.audit({ type: 'auth.passkey_renamed', userId: caller.userId });
  return { passkey: passkeyView(input.id, passkey) };
}

/** Writes lost to a concurrent change of the account's factors before the removal gives up (each re-reads). */
const MAX_ATTEMPTS = 3;

/**
 * DELETE /passkeys/{id}: with a recent login that used a second factor (its route's
 * `recent-with-factor`), so a password alone cannot take a factor away. The account's last factor
 * takes the recovery codes with it (on the condition that it is still the last).
 */
export async function removePasskey(deps: PasskeyDependencies, input: { caller: AuthenticatedSession; id: string }): Promise<void> {
  configuredRelyingParty(deps);
  const { caller } = input;
  const removed = deps.accountEvents.of('factor.removed', caller.userId, { factor: 'passkey', credentialId: input.id, by: 'owner' });
  for (let attempt = 1; ; attempt++) {
    const factors = await deps.mfa.read(caller.accountKey);
    if (factors?.passkeys.has(input.id) !== true) throw new PasskeyNotFoundError();
    const lastFactor = factors.totpSecret === undefined && factors.passkeys.size === 1;
    if (await deps.passkeys.remove(caller.accountKey, input.id, lastFactor, removed)) break;
    if (attempt >= MAX_ATTEMPTS) throw new TemporarilyUnavailableError(1);
  }
  await deps.passkeys.deleteLookup(input.id, caller.accountKey);
  deps.audit({ type: 'auth.passkey_removed', userId: caller.userId });
  await mailMfaChange(deps, caller.userId, 'passkey_removed');
}
