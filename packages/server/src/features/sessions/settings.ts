/**
 * The sessions' settings: how long sessions and known devices live, how hard they may be used
 * (reasons in README.md here), and the Lambda authorizer's cache. config/session-config.ts and
 * config/authorizer-config.ts read them from the environment; in code, spread the defaults.
 */

/** How long sessions live and how hard they may be used. */
export interface SessionConfig {
  /** A session no refresh has used for this long ends (PASSLANE_SESSION_IDLE_S). */
  idleSeconds: number;
  /** A session ends this long after its login, however often it is refreshed (PASSLANE_SESSION_MAX_AGE_S). */
  maxAgeSeconds: number;
  /** A refresh token spent this recently may be presented again for the same new pair (PASSLANE_REFRESH_GRACE_S). */
  graceSeconds: number;
  /** Live sessions per account; a login beyond it ends the oldest (PASSLANE_SESSIONS_PER_ACCOUNT). */
  perAccount: number;
  /** Refreshes per session per hour (PASSLANE_REFRESH_LIMIT_PER_SESSION). */
  refreshesPerSessionPerHour: number;
  /** Failed refreshes per source per rate-limit window (PASSLANE_REFRESH_FAILURES_PER_SOURCE). */
  refreshFailuresPerSource: number;
  /** A known device no good login has presented for this long is forgotten (PASSLANE_DEVICE_TTL_S). */
  deviceSeconds: number;
  /** Known devices per account; a new one beyond it forgets the least recently used (PASSLANE_DEVICES_PER_ACCOUNT). */
  devicesPerAccount: number;
}

const DAY = 86_400;

/**
 * - Idle 14 days, at most 30 days from the login: a phone used weekly stays signed in for a
 *   month, a lost laptop's session dies two weeks after its last use.
 * - Grace 10 s: two tabs refreshing together or a lost response retried; short enough that a
 *   stolen spent token is almost always caught as reuse.
 * - 10 sessions per account: a person's devices, and a bound on what one account's item holds.
 * - 60 refreshes per session per hour: one every 15-minute access token is 4; the rest is
 *   slack for tabs and retries.
 * - 50 failed refreshes per source per window: a client with a stale token fails a few times.
 *   Only failing refreshes are held to it: a valid refresh token is never refused for what
 *   others sent from the same address (a NAT).
 * - Known devices (device-token.ts) last 180 days from their last good login, 20 per account:
 *   a person's browsers and apps over half a year, and a bound on the item.
 */
export const DEFAULT_SESSION_CONFIG: Readonly<SessionConfig> = {
  idleSeconds: 14 * DAY,
  maxAgeSeconds: 30 * DAY,
  graceSeconds: 10,
  perAccount: 10,
  refreshesPerSessionPerHour: 60,
  refreshFailuresPerSource: 50,
  deviceSeconds: 180 * DAY,
  devicesPerAccount: 20,
};

/** The Lambda authorizer's per-container cache of session verdicts (authorize-access.ts). */
export interface AuthorizerConfig {
  /**
   * PASSLANE_AUTHORIZER_CACHE_S (5), 0 to 60: how long a container reuses what it read about a
   * session (live or ended) before reading it again. An ended session's tokens keep working for
   * at most this long in containers that saw it live; 0 reads the table on every request.
   */
  cacheSeconds: number;
}

/** 5 s: a read per session every few seconds at most, and a logout felt everywhere within 5 s. */
export const DEFAULT_AUTHORIZER_CACHE_S = 5;
/** A minute: beyond it, logout would no longer mean "signed out now" to the APIs behind it. */
export const MAX_AUTHORIZER_CACHE_S = 60;
