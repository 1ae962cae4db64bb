/**
 * POST /token: { grant_type: "refresh_token", refresh_token } (JSON or form) -> 200 with a new
 * access token and refresh token. Holds the signing key; no hasher, pepper or fingerprint key.
 */
import { tokenRoute } from '../packages/server/src/features/sessions/token-route.js';
import { getSessionDependencies } from '../packages/server/src/runtimes/lambda/lambda-session-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([tokenRoute], { sessions: getSessionDependencies });
