/**
 * Sign-in with providers (packages/server/src/features/federation/README.md): GET
 * /oauth/{provider}/start, the callback (GET, and POST for `form_post`), POST /oauth/token, and
 * the account's identities (GET /identities, DELETE /identities/{id}, POST /identities/link).
 * One function: the routes share the providers' clients (their discovery and keys, cached per
 * container) and the flow's items. The signing key, the fingerprint key and the providers'
 * secrets (PASSLANE_OAUTH_SECRETS); no hasher: no password is verified here.
 */
import type { AnyRoute } from '../packages/server/src/api/route.js';
import type { FederationServices } from '../packages/server/src/features/federation/dependencies.js';
import { oauthCallbackFormRoute, oauthCallbackRoute, oauthStartRoute, oauthTokenRoute } from '../packages/server/src/features/federation/federation-routes.js';
import { linkIdentityRoute, listIdentitiesRoute, removeIdentityRoute } from '../packages/server/src/features/federation/identity-routes.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { lambdaHookInvoker } from '../packages/server/src/runtimes/node/lambda-hook-invoker.js';
import { buildFederationDependencies } from '../packages/server/src/wiring/build-federation-dependencies.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { authenticatorOver } from '../packages/server/src/wiring/api-services.js';
import type { CallerServices } from '../packages/server/src/features/sessions/caller-services.js';

const log = { info: (message: string, fields?: Record<string, unknown>) => logger.info(message, fields ?? {}), warn: (message: string, fields?: Record<string, unknown>) => logger.warn(message, fields ?? {}) };
const platform = { dynamoDb: createLambdaDynamoDbClient, jwsSigner: createNodeJwsSigner, audit: auditToPowertools, mail: { log }, hookInvoker: lambdaHookInvoker };
// One set per container for both services: the providers' clients keep their discovery and keys.
const dependencies = onceUntilFailure(async () => buildFederationDependencies(await configWithSecrets(), platform));

const routes = [oauthStartRoute, oauthCallbackRoute, oauthCallbackFormRoute, oauthTokenRoute, listIdentitiesRoute, removeIdentityRoute, linkIdentityRoute];
export const handler = lambdaHandler<FederationServices & CallerServices>(routes as AnyRoute<FederationServices & CallerServices>[], {
  federation: dependencies,
  identities: dependencies,
  authenticator: authenticatorOver(dependencies),
});
