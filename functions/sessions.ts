/**
 * POST /logout[?scope=others|global], GET /sessions, DELETE /sessions/{id} and DELETE
 * /devices/{id}, each with a Bearer access token: routes with the same needs (the public keys
 * and the sessions item, which holds the known devices too), so one function and one role serve
 * them. No signing key, hasher or fingerprint key.
 */
import { logoutRoute } from '../src/api/routes/logout.js';
import { deleteDeviceRoute, deleteSessionRoute, listSessionsRoute } from '../src/api/routes/sessions.js';
import { getSessionManagementDependencies } from '../src/wiring/lambda-session-management-dependencies.js';
import { lambdaHandler } from '../src/hosts/lambda.js';

export const handler = lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute, deleteDeviceRoute], { sessionManagement: getSessionManagementDependencies });
