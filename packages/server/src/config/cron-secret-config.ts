import { ConfigError } from './config-error.js';
import { text, type Env } from './env.js';

const MIN_LENGTH = 16;

/**
 * CRON_SECRET, Vercel Cron's bearer token for the event sweep's route (runtimes/vercel-edge/cron-sweep.ts).
 * Required there: unset or shorter than 16 characters throws, so the route refuses every request
 * rather than sweep for anyone. Never quoted.
 */
export function readCronSecret(env: Env): string {
  const secret = text(env, 'CRON_SECRET');
  if (secret === undefined || secret.length < MIN_LENGTH) {
    throw new ConfigError('CRON_SECRET', `must be set to at least ${MIN_LENGTH} random characters (openssl rand -hex 32): the event sweep refuses every request without it`);
  }
  return secret;
}
