import type { Audit } from '../../accounts/audit-events.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import { requireFactorLoginOnceEnrolled } from '../mfa/recent-login.js';
import type { AuthenticatedSession } from '../sessions/authenticate-session.js';
import { deleteAccount } from './delete-account.js';
import type { AccountLifecycleDependencies } from './dependencies.js';

/**
 * DELETE /account: the owner erases their account. The route asks for a recent login; on an
 * account with a second factor the login must have used it (ASVS 7.5.1), so a stolen session or
 * password alone cannot erase the account. The factors are read here, as the factor routes do.
 */
export async function deleteOwnAccount(
  deps: AccountLifecycleDependencies & { mfa: Pick<MfaStore, 'read'>; audit: Audit },
  caller: AuthenticatedSession,
): Promise<void> {
  requireFactorLoginOnceEnrolled(deps, caller, await deps.mfa.read(caller.accountKey));
  await deleteAccount(deps, { userId: caller.userId, actor: { kind: 'owner' } });
}
