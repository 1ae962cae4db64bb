import type { Actor } from '../../accounts/audit-events.js';
import { UserNotFoundError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { actorName } from './delete-account.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { endAccountSessions } from './end-account-sessions.js';
import { findAccount } from './find-account.js';
import { mailAccountChange } from './mail-account-change.js';
import { changedBy } from './changed-by.js';

/**
 * Disables the account: marked on its item (when and by whom: a login with the right secret is
 * then `account_disabled`, features/login), then every session ends and every device is
 * forgotten in one write that marks the sessions item too, so no login already past its checks,
 * no device approval and no refresh adds anything until it is enabled (session-store.ts). Its
 * access tokens stop working on passlane's routes and the authorizer (their session is gone).
 * The owner is mailed.
 */
export async function disableAccount(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor }): Promise<void> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const now = deps.now();
  const disabled = deps.accountEvents.of('account.disabled', user.userId, { by: changedBy(input.actor) });
  if (!(await deps.users.setDisabled(user.email, user.userId, { at: now, by: actorName(input.actor) }, now, disabled))) throw new UserNotFoundError();
  await endAccountSessions(deps, { accountKey, userId: user.userId, reason: 'account_disabled', actor: input.actor, options: { disabledAt: epochSeconds(now) } });
  deps.audit({ type: 'auth.account_disabled', userId: user.userId, actor: input.actor });
  await mailAccountChange(deps, user.email, 'disabled');
}

/**
 * Enables it again: the marks go (the account item's, then the sessions item's), so logins work
 * again; no session comes back (they ended with the disable). The owner is mailed.
 */
export async function enableAccount(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor }): Promise<void> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const now = deps.now();
  const enabled = deps.accountEvents.of('account.enabled', user.userId, { by: changedBy(input.actor) });
  if (!(await deps.users.setDisabled(user.email, user.userId, undefined, now, enabled))) throw new UserNotFoundError();
  await endAccountSessions(deps, { accountKey, userId: user.userId, reason: 'account_disabled', actor: input.actor, options: { disabledAt: false } });
  deps.audit({ type: 'auth.account_enabled', userId: user.userId, actor: input.actor });
  await mailAccountChange(deps, user.email, 'enabled');
}
