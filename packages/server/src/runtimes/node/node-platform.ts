import { createPasswordHasher } from 'passlane';
import { createAuditSink } from '../../observability/audit.js';
import { logger } from '../../observability/logger.js';
import { createBulkDynamoDbClient } from '../../storage/bulk-dynamodb-client.js';
import { createDynamoDbClient } from '../../storage/dynamodb-client.js';
import { createNodeJwsSigner } from '../../features/tokens/node-jws-signer.js';
import { loadBundledBlocklist } from '../../features/password/rules/bundled-blocklist.js';
import type { Platform } from '../../wiring/platform.js';

/**
 * Lambda, `npm start`, Deno and Bun: the Node entry (native argon2, WASM fallback), the SDK's
 * credential chain, node:crypto for token signatures, Powertools logs and metrics. One cached
 * DynamoDB client per configuration. Without the password blocklist: for the Lambda functions
 * that never set a password (login, rehash), whose bundles then leave its data out.
 * Everything else uses `nodePlatform`.
 */
export const nodePlatformWithoutBlocklist: Platform = {
  createPasswordHasher,
  dynamoDb: createDynamoDbClient,
  jwsSigner: createNodeJwsSigner,
  warn: (message, fields) => logger.warn(message, fields ?? {}),
  // Pure: a bundle that never uses the platform (the JWKS function) drops it with its imports.
  audit: /* @__PURE__ */ createAuditSink(),
  mail: { log: { info: (message, fields) => logger.info(message, fields ?? {}), warn: (message, fields) => logger.warn(message, fields ?? {}) } },
  // A dynamic import: the Lambda bundles keep the SDK's Lambda client in a chunk read only when configured.
  migrationFunction: async (config) => (await import('../../features/migration/lambda-migration-source.js')).createLambdaMigrationSource(config),
};

/** The same with the bundled blocklist: every Node host and function that sets passwords. */
export const nodePlatform: Platform = /* @__PURE__ */ withPasswordBlocklist(nodePlatformWithoutBlocklist);

// A call marked pure, not a spread in place: esbuild keeps an unused object spread (it could run
// getters), and with it the blocklist's data, in every bundle that imports this module.
function withPasswordBlocklist(platform: Platform): Platform {
  return { ...platform, passwordBlocklist: loadBundledBlocklist };
}

/**
 * For import, inventory and the rehash job: the same, with a DynamoDB client for long-running
 * batches (adaptive retries, longer timeouts; see bulk-dynamodb-client.ts). Not cached: the CLI
 * destroys it when done, and a Lambda container builds it once.
 */
export function nodeBulkPlatform(): Platform {
  return { ...nodePlatformWithoutBlocklist, dynamoDb: createBulkDynamoDbClient };
}
