import { IdentityNotFoundError, InvalidOneTimeTokenError, LastSignInMethodError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { LinkedIdentity } from '../../storage/identity-store.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { IdentityManagementDependencies } from './dependencies.js';
import { PendingLink, readFlowItem } from './flow-items.js';
import { flowSecretHash } from './flow-secrets.js';
import { identityId, parseIdentityId } from './identity-id.js';
import { hasPassword } from './no-password.js';

/** GET /identities: the caller's account's identities at providers, oldest first. */
export async function listIdentities(deps: IdentityManagementDependencies, caller: AuthenticatedSession): Promise<LinkedIdentity[]> {
  return deps.identities.list(caller.accountKey, caller.userId);
}

/**
 * POST /identities/link: the identity a sign-in with a provider could not link by itself (its
 * verified email has this account: `identity_link_required` gave the link token), linked after
 * a recent login of that very account (the usual way: a password, a passkey). The token is spent
 * first (single use); a token of another account, expired or used is `invalid_token`, and so is
 * an identity that another account took meanwhile.
 */
export async function linkIdentity(deps: IdentityManagementDependencies, input: { caller: AuthenticatedSession; linkToken: unknown }): Promise<LinkedIdentity> {
  const { caller } = input;
  const now = deps.now();
  const hash = flowSecretHash(input.linkToken);
  const spent = hash === undefined ? undefined : await deps.flows.spend('link', hash);
  if (spent === undefined || spent.expiresAt <= epochSeconds(now)) throw new InvalidOneTimeTokenError();
  const pending = readFlowItem(PendingLink, spent.payload, 'federationFlow.link');
  if (pending.userId !== caller.userId) throw new InvalidOneTimeTokenError();
  const id = identityId(pending.provider, pending.subject);
  const linked = deps.accountEvents.of('identity.linked', caller.userId, { provider: pending.provider, identityId: id });
  // The claim decides the link (put only if absent): recorded with it, once, whatever retries follow.
  const claimed = await deps.identities.claim(pending.provider, pending.subject, { userId: caller.userId, email: pending.email, accountKey: caller.accountKey }, now, linked);
  if (!claimed && (await deps.identities.read(pending.provider, pending.subject))?.userId !== caller.userId) throw new InvalidOneTimeTokenError();
  const identity: LinkedIdentity = {
    id,
    provider: pending.provider,
    subject: pending.subject,
    email: pending.email,
    linkedAt: epochSeconds(now),
  };
  await deps.identities.record(caller.accountKey, caller.userId, identity);
  deps.audit({ type: 'auth.identity_linked', userId: caller.userId, provider: pending.provider });
  return identity;
}

/**
 * DELETE /identities/{id}, after a recent login: the identity no longer opens the account. Never
 * the last way in: on an account with no password and no passkey, the list's removal is
 * conditional on another identity staying (two removals racing for the last two: one loses).
 * The list first, then the lookup (what a sign-in reads): a removal that stopped between the two
 * is finished by the same request again (the id names the lookup).
 */
export async function removeIdentity(deps: IdentityManagementDependencies, input: { caller: AuthenticatedSession; id: string }): Promise<void> {
  const { caller } = input;
  const named = parseIdentityId(input.id);
  if (named === undefined) throw new IdentityNotFoundError();
  const [user, factors] = await Promise.all([deps.users.getUserById(caller.userId), deps.mfa.read(caller.accountKey)]);
  const hasPasskey = factors?.userId === caller.userId && factors.passkeys.size > 0;
  const otherWayIn = (user !== undefined && hasPassword(user)) || hasPasskey;
  const unlinked = deps.accountEvents.of('identity.unlinked', caller.userId, { provider: named.provider, identityId: input.id, by: 'owner' });
  const unlisted = await deps.identities.unlist(caller.accountKey, caller.userId, input.id, { keepOne: !otherWayIn }, unlinked);
  if (!unlisted) {
    const listed = (await deps.identities.list(caller.accountKey, caller.userId)).some((identity) => identity.id === input.id);
    if (listed) throw new LastSignInMethodError();
  }
  // A removal that stopped after the list's write was recorded with it; one that finds the list done records with the lookup.
  const released = await deps.identities.release(named.provider, named.subject, caller.userId, unlisted ? [] : unlinked);
  if (!unlisted && !released) throw new IdentityNotFoundError();
  deps.audit({ type: 'auth.identity_removed', userId: caller.userId, provider: named.provider });
}
