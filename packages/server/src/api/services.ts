export type { ApiLog, RequestOrigin } from './api-host.js';
import type { PublicTokenService } from '../features/tokens/token-service.js';
import type { AccountDependencies, AuthDependencies, RegisterDependencies, SessionDependencies, SessionManagementDependencies } from '../accounts/dependencies.js';

/**
 * What the routes use, each built on first use by the host, so a host pays only for what its
 * routes touch: the JWKS function builds no table client or hasher, and register loads no
 * signing key. A route declares the part it needs (`Pick<ApiServices, 'auth'>`).
 */
export interface ApiServices {
  /** Registration: hasher, accounts, rate limits, audit; no token service. */
  register(): Promise<RegisterDependencies>;
  /** Login: everything, with the signing key. */
  auth(): Promise<AuthDependencies>;
  /** Password change, reset and email verification: everything but the signing key (they only verify tokens). */
  account(): Promise<AccountDependencies>;
  /** Refresh: the signing key and the sessions, no hasher. */
  sessions(): Promise<SessionDependencies>;
  /** Logout and the session list: verification and the sessions, no signing key. */
  sessionManagement(): Promise<SessionManagementDependencies>;
  /** The published keys and claims settings (JWKS, discovery). */
  publicTokens(): Promise<PublicTokenService>;
}
