/**
 * POST /token: { grant_type: "refresh_token", refresh_token } (JSON or form) -> 200 with a new
 * access token and refresh token. Holds the signing key; no hasher, pepper or fingerprint key.
 */
import { tokenRoute } from '../src/api/routes/token.js';
import { getSessionDependencies } from '../src/wiring/lambda-session-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([tokenRoute], { sessions: getSessionDependencies });
