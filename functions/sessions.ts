/**
 * POST /logout[?scope=others|global], GET /sessions, DELETE /sessions/{id} and DELETE
 * /devices/{id}, each with a Bearer access token: routes with the same needs (the public keys
 * and the sessions item, which holds the known devices too), so one function and one role serve
 * them. No signing key, hasher or fingerprint key: its settings are plain env (the public keys in
 * PASSLANE_JWT_PUBLIC_KEYS), never the secret store.
 */
import { logoutRoute } from '../packages/server/src/features/sessions/logout-route.js';
import { deleteDeviceRoute, deleteSessionRoute, listSessionsRoute } from '../packages/server/src/features/sessions/session-routes.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildSessionManagementDependencies } from '../packages/server/src/wiring/build-dependencies.js';

const sessions = onceUntilFailure(async () => buildSessionManagementDependencies(readConfig(lambdaEnv()), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools }));

export const handler = lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute, deleteDeviceRoute], { sessions, authenticator: authenticatorOver(sessions) });
