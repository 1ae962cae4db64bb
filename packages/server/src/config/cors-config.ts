import type { CorsConfig } from '../api/settings.js';
import { ConfigError } from './config-error.js';
import { httpsOrLoopbackUrl, text, type Env } from './env.js';

const VARIABLE = 'PASSLANE_CORS_ORIGINS';

/**
 * PASSLANE_CORS_ORIGINS: a comma-separated list of origins whose pages may call the API with
 * credentials (api/settings.ts). Each exactly as a browser sends it, so a listed origin is found
 * by comparing strings: https, or http on a loopback host (a developer's app); never `*`.
 */
export function readCorsConfig(env: Env): CorsConfig {
  const value = text(env, VARIABLE);
  if (value === undefined) return { allowedOrigins: [] };
  const origins = value.split(',').map((origin) => origin.trim());
  return { allowedOrigins: [...new Set(origins.map(readOrigin))] };
}

function readOrigin(value: string): string {
  const fail = (why: string) => new ConfigError(VARIABLE, `${why} (got ${JSON.stringify(value)})`);
  if (value === '*' || value === 'null') {
    throw fail('lists origins one by one: a wildcard or "null" would hand any page the user\'s session (the public keys and discovery answer any origin already)');
  }
  const url = httpsOrLoopbackUrl(value, fail, {
    notUrl: 'must be a comma-separated list of origins such as https://app.example.com',
    notHttps: 'must list https origins (http only on localhost or 127.0.0.1): a page served over http can be altered on the way',
  });
  // Browsers send the origin serialized: lower-case, no default port, no path or trailing slash.
  if (url.origin !== value) throw fail(`must list each origin as a browser sends it: scheme, host and port only, such as ${url.origin}`);
  return value;
}
