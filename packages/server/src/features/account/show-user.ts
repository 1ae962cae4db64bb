import type { Actor } from '../../accounts/audit-events.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { UserRecord } from '../../storage/account-store.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { findAccount } from './find-account.js';
import { userView, type UserView } from './user-view.js';

/** One account by its id, as an operator sees it (user-view.ts); `user_not_found` when there is none. With `actor`, audited. */
export async function showUser(deps: AccountLifecycleDependencies, userId: string, actor?: Actor): Promise<UserView> {
  const { user, accountKey } = await findAccount(deps, userId);
  if (actor !== undefined) deps.audit({ type: 'auth.account_viewed', action: 'show', userId: user.userId, actor });
  return viewOf(deps, user, accountKey);
}

/** The account's view: its factors and sessions read beside it. */
export async function viewOf(deps: AccountLifecycleDependencies, user: UserRecord, accountKey: string): Promise<UserView> {
  const [factors, sessions] = await Promise.all([deps.mfa.read(accountKey), deps.sessions.read(accountKey)]);
  return userView(user, factors, sessions, epochSeconds(deps.now()));
}
