import type { SessionConfig } from '../config/session-config.js';
import { formatRefreshToken, newSecret, newSessionId, publicSessionId, secretHash } from '../sessions/refresh-token.js';
import { approximateNetwork, clientFamily } from '../sessions/session-origin.js';
import { isLive, type AccountSessions, type StoredSession } from '../storage/session-store.js';
import type { AuthDependencies } from './dependencies.js';
import { epochSeconds } from '../shared/epoch-seconds.js';

export interface StartedSession {
  /** The public id: the access token's `sid`. */
  sessionId: string;
  refreshToken: string;
  /** Seconds until the refresh token expires unless used (the idle timeout, within the absolute lifetime). */
  refreshExpiresIn: number;
}

export interface StartSessionInput {
  userId: string;
  /** What the session's access tokens say of the email (`email_verified`) until a verification updates it. */
  emailVerified?: boolean;
  /** The email fingerprint keying the account's sessions item. */
  accountKey: string;
  /** The sessions as read with the account: the write is conditional on them. */
  read: AccountSessions;
  sourceIp?: string;
  userAgent?: string;
  now: Date;
}

/**
 * A new session for a good login: one conditional write. Sessions that have ended are dropped
 * from the item, and when the account already has as many live sessions as allowed the oldest
 * end (logins racing each other may each add one before the next trims: the bound holds up to
 * the number of concurrent logins). SessionsChangedError (from the store) means a password
 * change purged the sessions, or a first login created the item, since the read: the caller
 * reads again.
 */
export async function startSession(deps: Pick<AuthDependencies, 'sessions' | 'sessionConfig' | 'audit'>, input: StartSessionInput): Promise<StartedSession> {
  const nowSeconds = epochSeconds(input.now);
  const config = deps.sessionConfig;
  const evict = sessionsToEnd(input.read, input.userId, nowSeconds, config);
  const sessionId = newSessionId();
  const secret = newSecret();
  const network = approximateNetwork(input.sourceIp);
  const session: StoredSession = {
    sessionId,
    userId: input.userId,
    generation: 0,
    tokenHash: secretHash(secret),
    spent: [],
    createdAt: nowSeconds,
    lastUsedAt: nowSeconds,
    idleExpiresAt: nowSeconds + config.idleSeconds,
    expiresAt: nowSeconds + config.maxAgeSeconds,
    ...(network !== undefined && { network }),
    client: clientFamily(input.userAgent),
    ...(input.emailVerified === true && { emailVerified: true }),
    refreshWindowStart: 0,
    refreshCount: 0,
  };
  await deps.sessions.create(input.read, session, evict.all);
  if (evict.live > 0) deps.audit({ type: 'auth.sessions_ended', userId: input.userId, count: evict.live, reason: 'evicted' });
  return {
    sessionId: publicSessionId(input.accountKey, sessionId),
    refreshToken: formatRefreshToken({ accountKey: input.accountKey, sessionId, secret }),
    refreshExpiresIn: refreshExpiresIn(session, nowSeconds),
  };
}

/** Seconds until the session ends unless refreshed. */
export function refreshExpiresIn(session: StoredSession, nowSeconds: number): number {
  return Math.max(0, Math.min(session.idleExpiresAt, session.expiresAt) - nowSeconds);
}

/** Every ended session in the item, and this account's oldest live ones beyond the limit (one place is kept for the new one). */
function sessionsToEnd(read: AccountSessions, userId: string, nowSeconds: number, config: SessionConfig): { all: string[]; live: number } {
  const ended: string[] = [];
  const live: StoredSession[] = [];
  for (const session of read.sessions.values()) {
    if (!isLive(session, nowSeconds)) ended.push(session.sessionId);
    else if (session.userId === userId) live.push(session);
  }
  const excess = live.length - (config.perAccount - 1);
  const oldest = excess > 0 ? live.sort((a, b) => a.createdAt - b.createdAt).slice(0, excess).map((s) => s.sessionId) : [];
  return { all: [...ended, ...oldest], live: oldest.length };
}
