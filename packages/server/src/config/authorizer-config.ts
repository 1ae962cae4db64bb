import { wholeNumber, type Env } from './env.js';

/** The Lambda authorizer's per-container cache of session verdicts (packages/server/src/features/sessions/authorize-access.ts). */
export interface AuthorizerConfig {
  /**
   * PASSLANE_AUTHORIZER_CACHE_S (5), 0 to 60: how long a container reuses what it read about a
   * session (live or ended) before reading it again. An ended session's tokens keep working for
   * at most this long in containers that saw it live; 0 reads the table on every request.
   */
  cacheSeconds: number;
}

export const DEFAULT_AUTHORIZER_CACHE_S = 5;
/** A minute: beyond it, logout would no longer mean "signed out now" to the APIs behind it. */
export const MAX_AUTHORIZER_CACHE_S = 60;

export function readAuthorizerConfig(env: Env): AuthorizerConfig {
  return { cacheSeconds: wholeNumber(env, 'PASSLANE_AUTHORIZER_CACHE_S', { fallback: DEFAULT_AUTHORIZER_CACHE_S, min: 0, max: MAX_AUTHORIZER_CACHE_S }) };
}
