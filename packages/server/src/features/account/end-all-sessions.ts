import type { Actor } from '../../accounts/audit-events.js';
import type { AccountLifecycleDependencies } from './dependencies.js';
import { endAccountSessions } from './end-account-sessions.js';
import { findAccount } from './find-account.js';
import { mailAccountChange } from './mail-account-change.js';

/**
 * Every session of the account ends and every known device is forgotten, at once (ASVS 7.4.5: an
 * administrator can end a user's sessions); the password and factors stay. The owner is mailed.
 * The counts ended.
 */
export async function endAllSessions(deps: AccountLifecycleDependencies, input: { userId: string; actor: Actor }): Promise<{ sessions: number; devices: number }> {
  const { user, accountKey } = await findAccount(deps, input.userId);
  const ended = await endAccountSessions(deps, { accountKey, userId: user.userId, reason: 'all_ended', actor: input.actor });
  await mailAccountChange(deps, user.email, 'sessions_ended');
  return ended;
}
