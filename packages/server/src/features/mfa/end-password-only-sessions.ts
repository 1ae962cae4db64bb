import { TemporarilyUnavailableError } from '../../accounts/errors.js';
import { SessionsChangedError } from '../../storage/session-store.js';
import type { EndOtherSessionsDependencies } from '../sessions/dependencies.js';
import { usedFactor } from './recent-login.js';

/** Attempts at a purge that keeps losing to refreshes of the kept sessions or to other purges. */
const MAX_PURGE_ATTEMPTS = 3;

/**
 * A factor just turned on: the account's sessions whose login used no factor end (a stolen
 * password's session must not outlive the factor that would have stopped it), except `keep`, the
 * session that enabled it, which goes on password-only (its tokens never gain `mfa`). Sessions
 * that used a factor and the known devices stay. A purge (session-store.ts), not a removal: it
 * moves the item's epoch on, so a password-only login that read the account before the factor
 * existed cannot add its session after this (so it writes even when none is ended). The number of
 * sessions ended.
 */
export async function endPasswordOnlySessions(deps: EndOtherSessionsDependencies, input: { accountKey: string; userId: string; keep: string }): Promise<number> {
  for (let attempt = 1; attempt <= MAX_PURGE_ATTEMPTS; attempt++) {
    const read = await deps.sessions.read(input.accountKey);
    const sessions = [...read.sessions.values()];
    // Another account's sessions in the item (a fingerprint collision) are kept as they are.
    const ended = sessions.filter((session) => session.userId === input.userId && session.sessionId !== input.keep && !usedFactor(session)).map((session) => session.sessionId);
    const keep = sessions.map((session) => session.sessionId).filter((id) => !ended.includes(id));
    try {
      await deps.sessions.purge(read, keep, [...read.devices.keys()]);
      if (ended.length > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: ended.length, reason: 'factor_enabled' });
      return ended.length;
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}
