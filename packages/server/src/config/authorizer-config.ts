import { DEFAULT_AUTHORIZER_CACHE_S, MAX_AUTHORIZER_CACHE_S, type AuthorizerConfig } from '../features/sessions/settings.js';
import { wholeNumber, type Env } from './env.js';

export function readAuthorizerConfig(env: Env): AuthorizerConfig {
  return { cacheSeconds: wholeNumber(env, 'PASSLANE_AUTHORIZER_CACHE_S', { fallback: DEFAULT_AUTHORIZER_CACHE_S, min: 0, max: MAX_AUTHORIZER_CACHE_S }) };
}
