import { parsePublicSessionId } from './refresh-token.js';
import { isLive, type AccountSessions, type StoredSession } from '../../storage/session-store.js';
import { InvalidTokenError } from '../tokens/errors.js';
import type { SessionCheckDependencies } from './dependencies.js';
import { InsufficientScopeError, InsufficientUserAuthenticationError, UnauthenticatedError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/** The caller behind an access token whose session is still live. */
export interface AuthenticatedSession {
  userId: string;
  /** The public session id (`sid`). */
  sessionId: string;
  accountKey: string;
  session: StoredSession;
  /** The account's sessions as just read (consistently). */
  read: AccountSessions;
  issuedAt: Date;
}

/**
 * Verifies the access token and checks, with one consistent read, that its session has not
 * ended: the routes that manage sessions must not be usable with the token of an ended one. A
 * good token without the scope this API requires (PASSLANE_REQUIRED_SCOPE) is
 * `insufficient_scope` (403), before any read: refreshing would not change its scopes. Where
 * MFA is required, a token whose login had no second factor is `insufficient_user_authentication`
 * (403, RFC 9470), before any read too.
 */
export async function authenticateSession(
  deps: SessionCheckDependencies,
  accessToken: string | undefined,
  now = new Date(),
  options: { mfaExempt?: boolean } = {},
): Promise<AuthenticatedSession> {
  if (!accessToken) throw new UnauthenticatedError('a Bearer access token is required');
  const token = await deps.tokens.verify(accessToken).catch((cause: unknown) => {
    // Only a verdict on the token is `unauthenticated`; anything else (a bug, a broken key) stays an `internal_error`.
    if (cause instanceof InvalidTokenError && cause.reason === 'scope') throw new InsufficientScopeError();
    if (cause instanceof InvalidTokenError) throw new UnauthenticatedError('the access token is invalid or expired', { cause });
    throw cause;
  });
  // PASSLANE_REQUIRE_MFA: the token's login must have used a second factor; the MFA routes
  // themselves are exempt (that is where an account gets one).
  if (deps.requireMfa === true && options.mfaExempt !== true && !token.amr.includes('mfa')) throw new InsufficientUserAuthenticationError();
  const id = parsePublicSessionId(token.sessionId);
  if (id === undefined) throw new UnauthenticatedError('the access token belongs to no session');
  const read = await deps.sessions.read(id.accountKey);
  const session = read.sessions.get(id.sessionId);
  if (session === undefined || session.userId !== token.userId || !isLive(session, epochSeconds(now))) {
    throw new UnauthenticatedError('the session has ended');
  }
  return { userId: token.userId, sessionId: token.sessionId!, accountKey: id.accountKey, session, read, issuedAt: token.issuedAt };
}
