import { UserNotFoundError } from '../../accounts/errors.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { AccountLifecycleDependencies } from './dependencies.js';

/** The account with this userId and the fingerprint keying its other items; `user_not_found` when there is none. */
export async function findAccount(deps: Pick<AccountLifecycleDependencies, 'users' | 'fingerprint'>, userId: string): Promise<{ user: UserRecord; accountKey: string }> {
  const user = await deps.users.getUserById(userId);
  if (user === undefined) throw new UserNotFoundError();
  return { user, accountKey: deps.fingerprint(user.email) };
}
