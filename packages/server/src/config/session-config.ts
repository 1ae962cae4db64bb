import { DEFAULT_SESSION_CONFIG, type SessionConfig } from '../features/sessions/settings.js';
import { wholeNumber, type Env } from './env.js';

const DAY = 86_400;

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
