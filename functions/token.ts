/**
 * POST /token: { grant_type: "refresh_token", refresh_token } (JSON or form) -> 200 with a new
 * access token and refresh token. Holds the signing key; no hasher, pepper or fingerprint key:
 * its platform is the DynamoDB client, the audit sink and node:crypto's signer, nothing that hashes.
 */
import { tokenRoute } from '../packages/server/src/features/sessions/token-route.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { auditToPowertools } from '../packages/server/src/observability/audit.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { createLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { buildRefreshDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { lambdaHookInvoker } from '../packages/server/src/runtimes/node/lambda-hook-invoker.js';

export const handler = lambdaHandler([tokenRoute], {
  refresh: async () => buildRefreshDependencies(await configWithSecrets(), {
      dynamoDb: createLambdaDynamoDbClient,
      audit: auditToPowertools,
      jwsSigner: createNodeJwsSigner,
      // A token hook naming a Lambda function: the SDK's client, loaded only then.
      hookInvoker: lambdaHookInvoker,
    }),
});
