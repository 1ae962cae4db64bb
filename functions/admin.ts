/**
 * The operator API (/admin/users...: features/operators) behind API Gateway's AWS_IAM
 * authorization on each of its routes (packages/server/src/cdk/functions.ts, routeAuthorization):
 * the operator is the IAM principal API Gateway signed the request as
 * (requestContext.authorizer.iam.userArn, which lambdaHandler hands on as the request's
 * principal), and a request without one is refused. The lifecycle's parts and the fingerprint
 * key; no pepper, signing key or TOTP key, and no password blocklist: nothing here hashes,
 * signs or sets a password.
 */
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { iamPrincipalAuthentication } from '../packages/server/src/features/operators/operator-authentication.js';
import { OPERATOR_ROUTES } from '../packages/server/src/features/operators/operator-routes.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildAccountLifecycleDependencies } from '../packages/server/src/wiring/build-dependencies.js';

// No hasher in this platform: the bundle carries no argon2 or bcrypt binary.
const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };

// Built once per container, as every function's dependencies are.
const operators = onceUntilFailure(async () => ({
  ...(await buildAccountLifecycleDependencies(await configWithSecrets(), { dynamoDb: createLambdaDynamoDbClient, audit: auditToPowertools, mail: { log } })),
  operatorAuthentication: iamPrincipalAuthentication(),
}));

export const handler = lambdaHandler(OPERATOR_ROUTES, { operators });
