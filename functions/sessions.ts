/**
 * POST /logout[?scope=others|global], GET /sessions, DELETE /sessions/{id} and DELETE
 * /devices/{id}, each with a Bearer access token: routes with the same needs (the public keys
 * and the sessions item, which holds the known devices too), so one function and one role serve
 * them. No signing key, hasher or fingerprint key.
 */
import { logoutRoute } from '../packages/server/src/features/sessions/logout-route.js';
import { deleteDeviceRoute, deleteSessionRoute, listSessionsRoute } from '../packages/server/src/features/sessions/session-routes.js';
import { getSessionManagementDependencies } from '../packages/server/src/runtimes/lambda/lambda-session-management-dependencies.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';

export const handler = lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute, deleteDeviceRoute], { sessionManagement: getSessionManagementDependencies });
