import { ConfigError } from '../../config/config-error.js';
import type { Env } from '../../config/env.js';

/**
 * The Lambda platform's fast paths, on unless `PASSLANE_LAMBDA_FAST_PATHS=off`: the DynamoDB
 * item requests sent by the short path (direct-requests.ts, on the client of
 * lambda-dynamodb-client.ts) and bodies without a stream
 * (text-response.ts). They are the functions' alone: every other host, and whoever imports
 * `@passlane/server/storage`, gets the plain SDK client and web Responses. Off is the switch to
 * reach for when one is suspected (an SDK upgrade, a DynamoDB answer it reads wrong): the
 * functions then run the SDK's and hono's own paths, at the CPU docs/measurements.md
 * ("Login CPU") gives. This file holds only the switch, so that a function without DynamoDB
 * (JWKS, discovery) bundles no SDK for it.
 */
export const FAST_PATHS_VARIABLE = 'PASSLANE_LAMBDA_FAST_PATHS';

/** Whether the fast paths are on: unset or `on`, else `off`; anything else stops the cold start. */
export function readLambdaFastPaths(env: Env): boolean {
  const value = env[FAST_PATHS_VARIABLE]?.trim() ?? '';
  if (value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError(FAST_PATHS_VARIABLE, `must be on or off (got "${value.slice(0, 20)}")`);
}
