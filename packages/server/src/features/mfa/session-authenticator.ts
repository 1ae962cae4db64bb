import type { Audit } from '../../accounts/audit-events.js';
import type { Authenticator } from '../../accounts/authentication.js';
import { authenticateSession, type AuthenticatedSession } from '../sessions/authenticate-session.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import { recentCaller, recentMfaCaller } from './recent-login.js';

/** What checks a route's caller: the token's verification, the sessions item, the audit of refusals, the clock. */
export type CallerCheckDependencies = SessionCheckDependencies & { audit: Audit; now: () => Date };

/**
 * The callers' check a route's `authenticate` names (`Authentication`, accounts/authentication.ts), for the API
 * to run before the route's handler. Here rather than in sessions: the recent-login checks are
 * the factor routes' (recent-login.ts), and this feature already builds on sessions.
 */
export function sessionAuthenticator(deps: CallerCheckDependencies): Authenticator<AuthenticatedSession> {
  return async (authentication, accessToken) => {
    const now = deps.now();
    switch (authentication) {
      case 'session':
        return authenticateSession(deps, accessToken, now);
      case 'factor-session':
        return authenticateSession(deps, accessToken, now, { mfaExempt: true });
      case 'recent':
        return recentCaller(deps, accessToken, now);
      case 'recent-with-factor':
        return recentMfaCaller(deps, accessToken, now);
    }
  };
}
