import { parsePublicSessionId } from './refresh-token.js';
import { isLive, type SessionStore } from '../../storage/session-store.js';
import { InvalidTokenError, type InvalidTokenReason } from '../tokens/errors.js';
import type { VerifiedAccessToken } from '../tokens/verify-access-token.js';
import type { SessionVerdictCache } from './session-verdict-cache.js';

/**
 * For an authorizer in front of other APIs: is this access token good, and is its session still
 * live? Knows nothing of API Gateway (packages/server/src/runtimes/lambda/lambda-authorizer.ts turns events into calls).
 */
export interface AuthorizeAccessDependencies {
  /** Verification only: the public keys suffice (PASSLANE_JWT_PUBLIC_KEYS). */
  tokens: { verify(token: string, options?: { now?: Date }): Promise<Pick<VerifiedAccessToken, 'userId' | 'expiresAt' | 'sessionId' | 'amr'>> };
  sessions: Pick<SessionStore, 'read'>;
  /** This container's recent verdicts per session (session-verdict-cache.ts). */
  cache: SessionVerdictCache;
  /** PASSLANE_REQUIRE_MFA: deny tokens whose login used no second factor (`mfa` not in `amr`). */
  requireMfa?: boolean;
  now: () => Date;
}

/** Why access was refused: coarse, for logs; the caller answers every one the same way. */
export type AccessDenialReason = 'no_token' | 'invalid_token' | 'insufficient_scope' | 'insufficient_user_authentication' | 'no_session' | 'session_ended';

export type AccessDecision =
  | { allowed: true; userId: string; /** The public session id (`sid`). */ sessionId: string; cached: boolean }
  | { allowed: false; reason: AccessDenialReason; tokenProblem?: InvalidTokenReason; cached?: boolean };

/**
 * Verifies the token (signature, issuer, audience, expiry and, where the function requires one
 * (PASSLANE_REQUIRED_SCOPE), its scope: every request, never cached), then asks whether its
 * session is live: from this container's cache while the verdict is fresh,
 * otherwise with one consistent read of the account's sessions item. A token without a session
 * (`sid`) is refused: it could not be revoked. Storage failures are thrown, never turned into a
 * denial, so API Gateway answers 500 (retryable, and never cached as a deny).
 */
export async function authorizeAccess(deps: AuthorizeAccessDependencies, accessToken: string | undefined): Promise<AccessDecision> {
  if (!accessToken) return { allowed: false, reason: 'no_token' };
  const now = deps.now();
  let token: Pick<VerifiedAccessToken, 'userId' | 'expiresAt' | 'sessionId' | 'amr'>;
  try {
    token = await deps.tokens.verify(accessToken, { now });
  } catch (error) {
    if (error instanceof InvalidTokenError && error.reason === 'scope') return { allowed: false, reason: 'insufficient_scope' };
    if (error instanceof InvalidTokenError) return { allowed: false, reason: 'invalid_token', tokenProblem: error.reason };
    throw error; // a bug or a broken key, not a verdict on the token
  }
  // Like the scope, on every request and before any read: the token's login had no second factor.
  if (deps.requireMfa === true && !token.amr.includes('mfa')) return { allowed: false, reason: 'insufficient_user_authentication' };
  const sid = token.sessionId;
  const id = parsePublicSessionId(sid);
  if (sid === undefined || id === undefined) return { allowed: false, reason: 'no_session' };

  const nowMs = now.getTime();
  const cached = deps.cache.get(sid, nowMs);
  const verdict = cached ?? (await readVerdict(deps, id, sid, nowMs, token.expiresAt.getTime()));
  // The session's owner must be the token's subject (a token can only name its own session).
  if (!verdict.live || verdict.userId !== token.userId) return { allowed: false, reason: 'session_ended', cached: cached !== undefined };
  return { allowed: true, userId: token.userId, sessionId: sid, cached: cached !== undefined };
}

/** Reads the session and caches what was found, for no longer than the token or the session lasts. */
async function readVerdict(
  deps: AuthorizeAccessDependencies,
  id: { accountKey: string; sessionId: string },
  sid: string,
  nowMs: number,
  tokenExpiresAtMs: number,
): Promise<{ live: true; userId: string } | { live: false }> {
  const read = await deps.sessions.read(id.accountKey);
  const session = read.sessions.get(id.sessionId);
  const nowSeconds = Math.floor(nowMs / 1000);
  if (session === undefined || !isLive(session, nowSeconds)) {
    // An ended session never comes back (ids are random; a refresh needs a live one).
    const ended = { live: false } as const;
    deps.cache.set(sid, ended, nowMs, tokenExpiresAtMs);
    return ended;
  }
  const live = { live: true, userId: session.userId } as const;
  deps.cache.set(sid, live, nowMs, Math.min(tokenExpiresAtMs, Math.min(session.idleExpiresAt, session.expiresAt) * 1000));
  return live;
}
