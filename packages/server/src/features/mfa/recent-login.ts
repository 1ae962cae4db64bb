import { ReauthenticationRequiredError } from '../../accounts/errors.js';
import type { StoredSession } from '../../storage/session-store.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { MFA_LIMITS } from './settings.js';

/**
 * "Recent authentication": the session's login (its `createdAt`, the tokens' `auth_time`) was
 * within the last 5 minutes. Read from the stored session, not the token, so a refreshed token
 * does not make an old login recent. A stolen session (or refresh token) alone cannot add or
 * remove factors: the thief must know the password, and to remove one, a second factor.
 */
export function requireRecentLogin(session: Pick<StoredSession, 'createdAt'>, now: Date): void {
  if (epochSeconds(now) - session.createdAt > MFA_LIMITS.recentAuthSeconds) throw new ReauthenticationRequiredError();
}
