import type { Authenticator } from '../../accounts/authentication.js';
import type { AuthenticatedSession } from './authenticate-session.js';

/**
 * The callers' check of every route that declares `authenticate` (src/api/route.ts): who is
 * behind the Bearer token, handed to its handler as an `AuthenticatedSession`
 * (mfa/session-authenticator.ts). A host builds it over any feature's session-check dependencies.
 */
export interface CallerServices {
  authenticator(): Promise<Authenticator<AuthenticatedSession>>;
}
