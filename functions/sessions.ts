/**
 * POST /logout[?scope=others|global], GET /sessions and DELETE /sessions/{id}, each with a
 * Bearer access token: three routes with the same needs (the public keys and the sessions), so
 * one function and one role serve them. No signing key, hasher or fingerprint key.
 */
import { logoutRoute } from '../src/api/routes/logout.js';
import { deleteSessionRoute, listSessionsRoute } from '../src/api/routes/sessions.js';
import { getSessionManagementDependencies } from '../src/wiring/lambda-session-management-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute], { sessionManagement: getSessionManagementDependencies });
