import type { Actor } from '../../accounts/audit-events.js';
import { canonicalEmail } from '../../accounts/canonical-email.js';
import { UserNotFoundError } from '../../accounts/errors.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { viewOf } from './show-user.js';
import type { UserView } from './user-view.js';

/**
 * The account of an address (in any form: it is made canonical first, as a login's), as an
 * operator sees it; `user_not_found` when there is none. With `actor`, audited by the address's
 * fingerprint, never the address.
 */
export async function findUserByEmail(deps: AccountLifecycleDependencies, email: string, actor?: Actor): Promise<UserView> {
  const canonical = canonicalEmail(email);
  const accountKey = deps.fingerprint(canonical);
  const user = await deps.users.getUserByEmail(canonical);
  if (actor !== undefined) deps.audit({ type: 'auth.account_viewed', action: 'find', emailFingerprint: accountKey, ...(user !== undefined && { userId: user.userId }), actor });
  if (user === undefined) throw new UserNotFoundError();
  return viewOf(deps, user, accountKey);
}
