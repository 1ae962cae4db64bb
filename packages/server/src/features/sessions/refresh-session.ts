import {
  formatRefreshToken,
  newSecret,
  openNextSecret,
  parseRefreshToken,
  publicSessionId,
  sameHash,
  sealNextSecret,
  secretHash,
  spentMark,
  type RefreshToken,
} from './refresh-token.js';
import { isLive, type AccountSessions, type StoredSession } from '../../storage/session-store.js';
import type { RefreshDependencies } from './dependencies.js';
import { InvalidGrantError, RateLimitedError, RefreshTokenReusedError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { sourceKeyOf } from '../../accounts/source-key.js';
import { refreshExpiresIn, sessionAuthentication } from './start-session.js';
import { tokenHookClaims } from './token-hook-claims.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

export interface RefreshRequest {
  /** The refresh token presented (a refresh grant's `refresh_token`, RFC 6749 §6). */
  refreshToken: string;
  sourceIp?: string;
}

export interface RefreshResponse {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  /** The access token's scopes (space-separated), when it has any. */
  scope?: string;
  refreshToken: string;
  refreshExpiresIn: number;
}

/** Spent secrets remembered per session, to tell reuse from a stranger's guess. */
export const SPENT_KEPT = 8;
/** Rotations lost to a concurrent one before giving up (each re-reads; the second read settles a race). */
const MAX_DECISIONS = 3;
const HOUR = 3600;

type Failure = 'malformed' | 'unknown_session' | 'expired' | 'mismatch';

/**
 * POST /token: spends the refresh token and returns a new one with a new access token. One
 * consistent read (the account's sessions and this source's failed refreshes, in one request;
 * a source over its limit gets `rate_limited` instead of each further failure)
 * and one write conditional on the session's generation: of two refreshes racing with one
 * token exactly one rotates. The other reads again and, within the grace window, receives the
 * same new token (sealed under the spent one, packages/server/src/features/sessions/refresh-token.ts), so the session
 * keeps one live token. A spent token after the grace window is reuse: the session ends.
 */
export async function refreshSession(deps: RefreshDependencies, request: RefreshRequest): Promise<RefreshResponse> {
  const token = parseRefreshToken(request.refreshToken);

  for (let decision = 1; decision <= MAX_DECISIONS; decision++) {
    const now = deps.now();
    const nowSeconds = epochSeconds(now);
    const source = sourceWindow(request.sourceIp, nowSeconds, deps.rateLimits.windowSeconds);
    const { sessions, sourceFailures } = await deps.sessions.readForRefresh(token?.accountKey, source);
    // Only a failing refresh is held to its source's limit: a valid token is never refused for
    // what others behind the same address (a NAT) sent, and a guess at 256 bits gains nothing.
    const fail = async (reason: Failure): Promise<never> => {
      if (sourceFailures >= deps.sessionConfig.refreshFailuresPerSource) {
        deps.audit({ type: 'auth.rate_limited', scope: 'refresh_source' });
        throw new RateLimitedError(source.windowEnd - nowSeconds);
      }
      await deps.sessions.recordRefreshFailure(source);
      deps.audit({ type: 'auth.refresh_failed', reason });
      throw new InvalidGrantError();
    };
    if (token === undefined || sessions === undefined) return fail('malformed');
    const session = sessions.sessions.get(token.sessionId);
    if (session === undefined) return fail('unknown_session');
    if (!isLive(session, nowSeconds)) return fail('expired');

    const presented = secretHash(token.secret);
    if (sameHash(presented, session.tokenHash)) {
      // The hook before the rotation: a refused refresh leaves the presented token live, to be tried again.
      const claims = await refreshClaims(deps, session);
      const rotated = await rotate(deps, token, session, presented, nowSeconds);
      if (rotated === 'lost') continue;
      return answer(deps, token, rotated.session, rotated.secret, now, false, claims);
    }
    if (sameHash(presented, session.previousHash)) {
      const { graceSeconds } = deps.sessionConfig;
      if (graceSeconds > 0 && nowSeconds - (session.rotatedAt ?? 0) <= graceSeconds && session.sealedNext !== undefined) {
        const next = openNextSecret(token.secret, session.sessionId, session.sealedNext);
        if (next !== undefined && sameHash(secretHash(next), session.tokenHash)) return answer(deps, token, session, next, now, true, await refreshClaims(deps, session));
      }
      return reused(deps, token, sessions, session, source);
    }
    if (session.spent.includes(spentMark(presented))) return reused(deps, token, sessions, session, source);
    return fail('mismatch');
  }
  // Rotations kept losing to others: only a client hammering one token gets here.
  throw new TemporarilyUnavailableError(1);
}

/** The next generation of the session, written on the condition that it is still the one read. */
async function rotate(
  deps: RefreshDependencies,
  token: RefreshToken,
  session: StoredSession,
  presented: string,
  nowSeconds: number,
): Promise<{ session: StoredSession; secret: Uint8Array<ArrayBuffer> } | 'lost'> {
  // The per-session budget: hourly windows, counted in the session itself (no extra request).
  const windowStart = nowSeconds - (nowSeconds % HOUR);
  const count = session.refreshWindowStart === windowStart ? session.refreshCount : 0;
  if (count >= deps.sessionConfig.refreshesPerSessionPerHour) {
    deps.audit({ type: 'auth.rate_limited', scope: 'session' });
    throw new RateLimitedError(windowStart + HOUR - nowSeconds);
  }
  const secret = newSecret();
  const rotated: StoredSession = {
    ...session,
    generation: session.generation + 1,
    tokenHash: secretHash(secret),
    previousHash: presented,
    rotatedAt: nowSeconds,
    sealedNext: sealNextSecret(token.secret, session.sessionId, secret),
    spent: [...(session.previousHash === undefined ? [] : [spentMark(session.previousHash)]), ...session.spent].slice(0, SPENT_KEPT),
    lastUsedAt: nowSeconds,
    idleExpiresAt: nowSeconds + deps.sessionConfig.idleSeconds,
    refreshWindowStart: windowStart,
    refreshCount: count + 1,
  };
  return (await deps.sessions.rotate(token.accountKey, rotated, session.generation)) ? { session: rotated, secret } : 'lost';
}

async function answer(
  deps: RefreshDependencies,
  token: RefreshToken,
  session: StoredSession,
  secret: Uint8Array<ArrayBuffer>,
  now: Date,
  grace: boolean,
  claims: Record<string, unknown> | undefined,
): Promise<RefreshResponse> {
  const sessionId = publicSessionId(token.accountKey, session.sessionId);
  const access = await deps.tokens.issue({
    userId: session.userId,
    sessionId,
    emailVerified: session.emailVerified === true,
    ...sessionAuthentication(session),
    ...(claims !== undefined && { claims }),
    now,
  });
  deps.audit({ type: 'auth.session_refreshed', userId: session.userId, sessionId, grace });
  return {
    ...access,
    refreshToken: formatRefreshToken({ accountKey: token.accountKey, sessionId: session.sessionId, secret }),
    refreshExpiresIn: refreshExpiresIn(session, epochSeconds(now)),
  };
}

/**
 * A refresh asks the token hook again rather than reusing the login's claims: they stay current
 * (a role taken away is gone at the next refresh), and the session need not keep them.
 */
function refreshClaims(deps: RefreshDependencies, session: StoredSession): Promise<Record<string, unknown> | undefined> {
  const { amr } = sessionAuthentication(session);
  return tokenHookClaims(deps, { accountId: session.userId, ...(session.email !== undefined && { email: session.email }), amr, trigger: 'refresh' });
}

/** A spent token came back: whoever holds the live one may be a thief, so the session ends for both. */
async function reused(
  deps: RefreshDependencies,
  token: RefreshToken,
  sessions: AccountSessions,
  session: StoredSession,
  source: SourceWindow,
): Promise<never> {
  await Promise.all([deps.sessions.end(sessions, [session.sessionId]), deps.sessions.recordRefreshFailure(source)]);
  const sessionId = publicSessionId(token.accountKey, session.sessionId);
  deps.audit({ type: 'auth.refresh_token_reused', userId: session.userId, sessionId });
  deps.audit({ type: 'auth.sessions_ended', userId: session.userId, count: 1, reason: 'reused' });
  throw new RefreshTokenReusedError();
}

interface SourceWindow {
  key: string;
  windowStart: number;
  windowEnd: number;
}

function sourceWindow(sourceIp: string | undefined, nowSeconds: number, windowSeconds: number): SourceWindow {
  const windowStart = nowSeconds - (nowSeconds % windowSeconds);
  return { key: sourceKeyOf(sourceIp), windowStart, windowEnd: windowStart + windowSeconds };
}
