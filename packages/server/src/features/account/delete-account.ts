import type { Actor } from '../../accounts/audit-events.js';
import { UserNotFoundError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { endAccountSessions } from './end-account-sessions.js';
import { findAccount } from './find-account.js';
import { mailAccountChange } from './mail-account-change.js';
import { changedBy } from './changed-by.js';

/**
 * How long a deleted account's emptied sessions item stays (its TTL): longer than any login, MFA
 * login token or device approval that may have read the item before the deletion, so none of
 * them finds "no item" and writes a session or device into a new one (SECURITY.md, "Deletion").
 */
export const CLOSED_SESSIONS_SECONDS = 24 * 3600;

/**
 * Erases the account: its item (and with it the email's lookup: the item is keyed by the
 * address), its sessions and known devices, its factors and their passkey lookups, its
 * outstanding reset and verification links; then mails the address. The address may register
 * again at once. In this order, each step safe to repeat:
 *
 * 1. the account is marked disabled (no login passes from here on: features/login's gate), and
 * 2. its sessions item purged and marked too, in one write that moves its epoch on: every access
 *    and refresh token of the account stops working now (their session is gone), and a login
 *    already past its checks cannot write a session (the mark refuses it: session-store.ts);
 * 3. the factors and their lookups, the identities at providers and their lookups, the one-time tokens;
 * 4. the account item, on the condition that it is still this account's;
 * 5. the sessions item emptied again with the mark cleared, its epoch moved on and its TTL near
 *    (CLOSED_SESSIONS_SECONDS), so the address's next account can sign in.
 *
 * A crash before step 4 leaves a disabled account an operator deletes again; after it, only the
 * marked sessions item, which goes with its TTL (SECURITY.md says what else remains and why).
 */
export async function deleteAccount(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor }): Promise<void> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const now = deps.now();
  const closedUntil = epochSeconds(now) + CLOSED_SESSIONS_SECONDS;
  if (!(await deps.users.setDisabled(user.email, user.userId, { at: now, by: actorName(input.actor) }, now))) throw new UserNotFoundError();
  const ended = { accountKey, userId: user.userId, reason: 'account_deleted', actor: input.actor } as const;
  await endAccountSessions(deps, { ...ended, options: { disabledAt: epochSeconds(now), expiresAt: closedUntil } });
  const factors = await deps.mfa.read(accountKey);
  if (factors !== undefined && factors.userId === user.userId) {
    await Promise.all([...factors.passkeys.keys()].map((credentialId) => deps.passkeys.deleteLookup(credentialId, accountKey)));
    await deps.mfa.deleteFactors(accountKey, user.userId);
  }
  // Its identities at providers before the account item: a lookup left behind never makes the account again (features/federation).
  const identities = await deps.identities.list(accountKey, user.userId);
  await Promise.all(identities.map((identity) => deps.identities.release(identity.provider, identity.subject, user.userId)));
  if (identities.length > 0) await deps.identities.forget(accountKey, user.userId);
  await deps.oneTimeTokens.discardAll(accountKey);
  if (!(await deps.users.deleteUser(user.email, user.userId, deps.accountEvents.of('account.deleted', user.userId, { by: changedBy(input.actor) })))) throw new UserNotFoundError();
  await endAccountSessions(deps, { ...ended, options: { disabledAt: false, expiresAt: closedUntil, forgetLogins: true } });
  deps.audit({ type: 'auth.account_deleted', userId: user.userId, emailFingerprint: accountKey, actor: input.actor });
  await mailAccountChange(deps, user.email, 'deleted');
}

/** What the account item says disabled it: the operator's identity, or `owner` (a deletion in progress). */
export function actorName(actor: Actor): string {
  return actor.kind === 'operator' ? actor.id : 'owner';
}
