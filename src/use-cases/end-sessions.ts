import { parsePublicSessionId } from '../sessions/refresh-token.js';
import { isLive, SessionsChangedError, type AccountSessions } from '../storage/session-store.js';
import type { SessionEndReason } from './audit-events.js';
import { authenticateSession } from './authenticate-session.js';
import type { SessionManagementDependencies } from './dependencies.js';
import { InvalidRequestError, SessionNotFoundError, TemporarilyUnavailableError } from './errors.js';
import { translateErrors } from './translate-errors.js';
import { epochSeconds } from '../shared/epoch-seconds.js';

export type LogoutScope = 'local' | 'others' | 'global';
export const LOGOUT_SCOPES: readonly LogoutScope[] = ['local', 'others', 'global'];

export interface LogoutRequest {
  accessToken: string | undefined;
  /** `local` (default): this session; `others`: every other session of the account; `global`: all of them. */
  scope?: string;
}

/** POST /logout: ends this session, the others, or all of the account's sessions. */
export async function logout(deps: SessionManagementDependencies, request: LogoutRequest): Promise<void> {
  const scope = request.scope ?? 'local';
  if (!(LOGOUT_SCOPES as readonly string[]).includes(scope)) {
    throw new InvalidRequestError(`scope must be one of ${LOGOUT_SCOPES.join(', ')}`, 'scope');
  }
  return translateErrors(async () => {
    const caller = await authenticateSession(deps, request.accessToken, deps.now?.());
    const mine = sessionIdsOf(caller.read, caller.userId);
    const ids = scope === 'local' ? [caller.session.sessionId] : scope === 'others' ? mine.filter((id) => id !== caller.session.sessionId) : mine;
    await deps.sessions.end(caller.read, ids);
    const reason: SessionEndReason = scope === 'local' ? 'logout' : scope === 'others' ? 'logout_others' : 'logout_global';
    if (ids.length > 0) deps.audit({ type: 'auth.sessions_ended', userId: caller.userId, count: ids.length, reason });
  });
}

/** DELETE /sessions/{id}: ends one of the caller's account's sessions (its own too). */
export async function deleteSession(deps: SessionManagementDependencies, request: { accessToken: string | undefined; id: string }): Promise<void> {
  return translateErrors(async () => {
    const caller = await authenticateSession(deps, request.accessToken, deps.now?.());
    const target = parsePublicSessionId(request.id);
    const session = target?.accountKey === caller.accountKey ? caller.read.sessions.get(target.sessionId) : undefined;
    const nowSeconds = epochSeconds(deps.now?.() ?? new Date());
    // Another account's session and an ended one look the same: not found.
    if (session === undefined || session.userId !== caller.userId || !isLive(session, nowSeconds)) throw new SessionNotFoundError();
    await deps.sessions.end(caller.read, [session.sessionId]);
    deps.audit({ type: 'auth.sessions_ended', userId: caller.userId, count: 1, reason: 'deleted' });
  });
}

/** Attempts at a purge that keeps losing to refreshes of the kept session or to other purges. */
const MAX_PURGE_ATTEMPTS = 3;

/**
 * After a password change: every session of the account but `keep` ends. The store replaces
 * the account's sessions with the kept ones and moves the epoch on, so a login decided on the
 * old password cannot leave a session behind (session-store.ts `purge`).
 */
export async function endOtherSessions(
  deps: Pick<SessionManagementDependencies, 'sessions' | 'audit'>,
  input: { accountKey: string; userId: string; keep?: string },
): Promise<void> {
  for (let attempt = 1; attempt <= MAX_PURGE_ATTEMPTS; attempt++) {
    const read = await deps.sessions.read(input.accountKey);
    const mine = sessionIdsOf(read, input.userId);
    // Other accounts' sessions in the item (a fingerprint collision, 1 in 2^64) are kept as they are.
    const others = [...read.sessions.values()].filter((session) => session.userId !== input.userId).map((session) => session.sessionId);
    const keep = [...others, ...mine.filter((id) => id === input.keep)];
    try {
      await deps.sessions.purge(read, keep);
      const ended = mine.length - (input.keep !== undefined && mine.includes(input.keep) ? 1 : 0);
      if (ended > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: ended, reason: 'password_changed' });
      return;
    } catch (error) {
      if (!(error instanceof SessionsChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/** Every session of the account in the item, live or not (ending an ended one tidies the item). */
function sessionIdsOf(read: AccountSessions, userId: string): string[] {
  return [...read.sessions.values()].filter((session) => session.userId === userId).map((session) => session.sessionId);
}
