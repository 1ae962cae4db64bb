import { wholeNumber, type Env } from './env.js';

/** How long sessions live and how hard they may be used; reasons in packages/server/src/features/sessions/README.md. */
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
 * - Known devices (packages/server/src/features/sessions/device-token.ts) last 180 days from their last good login, 20
 *   per account: a person's browsers and apps over half a year, and a bound on the item.
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

export function readSessionConfig(env: Env): SessionConfig {
  const d = DEFAULT_SESSION_CONFIG;
  const maxAgeSeconds = wholeNumber(env, 'PASSLANE_SESSION_MAX_AGE_S', { fallback: d.maxAgeSeconds, min: 60, max: 365 * DAY });
  return {
    maxAgeSeconds,
    idleSeconds: wholeNumber(env, 'PASSLANE_SESSION_IDLE_S', { fallback: Math.min(d.idleSeconds, maxAgeSeconds), min: 60, max: maxAgeSeconds }),
    graceSeconds: wholeNumber(env, 'PASSLANE_REFRESH_GRACE_S', { fallback: d.graceSeconds, min: 0, max: 60 }),
    // Up to 50: every login and refresh reads all of an account's sessions in one item.
    perAccount: wholeNumber(env, 'PASSLANE_SESSIONS_PER_ACCOUNT', { fallback: d.perAccount, min: 1, max: 50 }),
    refreshesPerSessionPerHour: wholeNumber(env, 'PASSLANE_REFRESH_LIMIT_PER_SESSION', { fallback: d.refreshesPerSessionPerHour, min: 1, max: 10_000 }),
    refreshFailuresPerSource: wholeNumber(env, 'PASSLANE_REFRESH_FAILURES_PER_SOURCE', { fallback: d.refreshFailuresPerSource, min: 1, max: 1_000_000 }),
    deviceSeconds: wholeNumber(env, 'PASSLANE_DEVICE_TTL_S', { fallback: d.deviceSeconds, min: 3600, max: 400 * DAY }),
    // Up to 50, like sessions: they share the one item every login reads.
    devicesPerAccount: wholeNumber(env, 'PASSLANE_DEVICES_PER_ACCOUNT', { fallback: d.devicesPerAccount, min: 1, max: 50 }),
  };
}
