/**
 * POST /logout[?scope=others|global], GET /sessions and DELETE /sessions/{id}, each with a
 * Bearer access token: three routes with the same needs (the token's key and the sessions), so
 * one function and one role serve them.
 */
import { logoutRoute } from '../src/api/routes/logout.js';
import { deleteSessionRoute, listSessionsRoute } from '../src/api/routes/sessions.js';
import { getSessionDependencies } from '../src/wiring/lambda-session-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute], { sessions: getSessionDependencies });
