import type { Audit } from '../../accounts/audit-events.js';
import type { AttemptLimits } from '../../accounts/settings.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { TokenHook } from '../../hooks/token-hook.js';
import type { AccessTokens } from '../tokens/dependencies.js';
import type { SessionConfig } from './settings.js';

/** The caller behind a Bearer access token, its session still live (authenticate-session.ts). */
export interface SessionCheckDependencies {
  tokens: Pick<AccessTokens, 'verify'>;
  sessions: Pick<SessionStore, 'read'>;
  /** PASSLANE_REQUIRE_MFA: tokens without `mfa` in `amr` are refused (but on the MFA routes). */
  requireMfa?: boolean;
}

/**
 * The token hook (src/hooks), asked for extra claims before a session's token is minted
 * (token-hook-claims.ts). Absent unless PASSLANE_TOKEN_HOOK_URL or _FUNCTION is set: nothing is asked then.
 */
export interface TokenHookDependencies {
  tokenHook?: TokenHook;
  audit: Audit;
}

/** A good login's new session and device (start-session.ts); with a token hook, the session keeps the address for refreshes. */
export interface StartSessionDependencies extends TokenHookDependencies {
  sessions: Pick<SessionStore, 'create'>;
  /** Lifetimes and limits of sessions (settings.ts). */
  sessionConfig: SessionConfig;
  audit: Audit;
}

/** Every session of an account but one ended after a new password (end-sessions.ts `endOtherSessions`). */
export interface EndOtherSessionsDependencies {
  sessions: Pick<SessionStore, 'read' | 'purge'>;
  audit: Audit;
}

/**
 * POST /token (refresh-session.ts): the signing key and the sessions only, so its function holds
 * no hasher, pepper or fingerprint key (the refresh token names the sessions item itself).
 */
export interface RefreshDependencies extends TokenHookDependencies {
  tokens: Pick<AccessTokens, 'issue'>;
  sessions: Pick<SessionStore, 'readForRefresh' | 'rotate' | 'end' | 'recordRefreshFailure'>;
  sessionConfig: SessionConfig;
  /** The window a source's failed refreshes are counted in. */
  rateLimits: Pick<AttemptLimits, 'windowSeconds'>;
  audit: Audit;
  now: () => Date;
}

/**
 * Logout, the session list, DELETE /sessions/{id} and DELETE /devices/{id}: they only check
 * access tokens, so their function holds the public keys and never the signing key.
 */
export type SessionManagementDependencies = SessionCheckDependencies & {
  sessions: Pick<SessionStore, 'read' | 'end'>;
  audit: Audit;
  now: () => Date;
};

/** POST /token's service. */
export interface RefreshServices {
  refresh(): Promise<RefreshDependencies>;
}

/** The session routes' service (logout, the list, ending a session, forgetting a device). */
export interface SessionServices {
  sessions(): Promise<SessionManagementDependencies>;
}

