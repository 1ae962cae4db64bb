import { canonicalEmail } from '../../accounts/canonical-email.js';
import { checkSignup } from '../../accounts/check-signup.js';
import { PasslaneServerError, ProviderEmailUnverifiedError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import type { UserRecord } from '../../storage/account-store.js';
import { AccountExistsError } from '../../storage/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { IdentityAccountDependencies } from './dependencies.js';
import { identityId } from './identity-id.js';
import { NO_PASSWORD } from './no-password.js';
import type { ProvenIdentity } from './provider.js';

/** An identity's account, as a federated login's verdict needs it. */
export interface IdentityAccount {
  kind: 'account';
  user: UserRecord;
  accountKey: string;
}

/** The identity is unknown and its verified email names an account: nothing is linked without that account's login. */
export interface LinkRequired {
  kind: 'link_required';
  userId: string;
  email: string;
}

/** Reads and writes before an identity's account is settled, while other sign-ins of it race. */
const MAX_STEPS = 6;

/**
 * From a provider's identity to its passlane account, whatever races. The identity's lookup item
 * (`identity#<provider>#<subject>`) decides: it is put only if absent, so one identity has one
 * account. A known identity is its account's. An unknown one:
 *  - without an email the provider verified: refused (no account is made, nothing is linked:
 *    an unverified address is anyone's to type);
 *  - whose verified email (in canonical form) has an account: `link_required`;
 *  - else it claims the lookup for a new userId and email, and the account is created for that
 *    claim. Every sign-in that finds a claim without its account creates that very account (same
 *    userId, same email, no password: an idempotent write), so a claimer that stopped halfway
 *    leaves nothing stuck, and many first sign-ins at once end in one account.
 * A lookup whose email now holds another account (the claim lost to a registration, or the account
 * replaced) is stale: released, and the sign-in decides again.
 */
export async function resolveIdentity(deps: IdentityAccountDependencies, identity: ProvenIdentity): Promise<IdentityAccount | LinkRequired> {
  for (let step = 1; step <= MAX_STEPS; step++) {
    const lookup = await deps.identities.read(identity.provider, identity.subject);
    if (lookup !== undefined) {
      const user = await deps.users.getUserByEmail(lookup.email);
      if (user?.userId === lookup.userId) {
        await recordIdentity(deps, identity, user, lookup.accountKey);
        return { kind: 'account', user, accountKey: lookup.accountKey };
      }
      // A claim whose account was never made is finished here; one its account listed (the account
      // made, then deleted or moved to another address) is stale: never made again (a deletion is
      // not undone, and a moved account keeps one item), released like a lookup of another account.
      if (user === undefined && !(await listedByItsAccount(deps, identity, lookup))) {
        await createClaimedAccount(deps, lookup, identity.provider);
        continue;
      }
      await deps.identities.release(identity.provider, identity.subject, lookup.userId);
      continue;
    }
    const email = verifiedEmail(identity);
    if (email === undefined) {
      deps.audit({ type: 'auth.federated_login_failed', reason: 'email_unverified', provider: identity.provider });
      throw new ProviderEmailUnverifiedError();
    }
    const existing = await deps.users.getUserByEmail(email);
    if (existing !== undefined) return { kind: 'link_required', userId: existing.userId, email };
    // Only a new account is asked about: a known identity, or one to link, creates none.
    await checkSignup(deps, { email, method: 'federated', provider: identity.provider });
    const userId = crypto.randomUUID();
    // Audited by the one sign-in whose claim landed (the account's creation is idempotent, so every racer may write it).
    if (await deps.identities.claim(identity.provider, identity.subject, { userId, email, accountKey: deps.fingerprint(email) }, deps.now())) {
      deps.audit({ type: 'auth.federated_account_created', userId, provider: identity.provider });
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/** The provider's email in canonical form, if it verified it; an address the rules refuse counts as none. */
export function verifiedEmail(identity: Pick<ProvenIdentity, 'email' | 'emailVerified'>): string | undefined {
  if (!identity.emailVerified || identity.email === undefined) return undefined;
  try {
    return canonicalEmail(identity.email);
  } catch (error) {
    if (error instanceof PasslaneServerError) return undefined;
    throw error;
  }
}

/**
 * The account a claim stands for, unless the email has one already (ours, written by a twin, or
 * another's: the next read tells). Of twins writing it, the one whose write lands records `user.registered`.
 */
async function createClaimedAccount(deps: IdentityAccountDependencies, lookup: { userId: string; email: string }, provider: string): Promise<void> {
  const registered = deps.accountEvents.of('user.registered', lookup.userId, { email: lookup.email, method: 'federated', provider });
  try {
    // The provider verified the email (a claim is only made for a verified one).
    await deps.users.createUser({ email: lookup.email, userId: lookup.userId, passwordHash: NO_PASSWORD, createdAt: deps.now(), emailVerified: true }, registered);
  } catch (error) {
    if (!(error instanceof AccountExistsError)) throw error;
  }
}

/** The account's list holds every identity that opens it (added if missing: a first sign-in that stopped halfway is listed at the next). */
export async function recordIdentity(deps: Pick<IdentityAccountDependencies, 'identities' | 'now'>, identity: ProvenIdentity, user: UserRecord, accountKey: string): Promise<void> {
  const email = verifiedEmail(identity);
  await deps.identities.record(accountKey, user.userId, {
    id: identityId(identity.provider, identity.subject),
    provider: identity.provider,
    subject: identity.subject,
    ...(email !== undefined && { email }),
    linkedAt: epochSeconds(deps.now()),
  });
}

/** The identity is on its account's list: that account was made (and since went, or moved). */
async function listedByItsAccount(deps: IdentityAccountDependencies, identity: ProvenIdentity, lookup: { userId: string; accountKey: string }): Promise<boolean> {
  const id = identityId(identity.provider, identity.subject);
  return (await deps.identities.list(lookup.accountKey, lookup.userId)).some((listed) => listed.id === id);
}
