import { createPasswordHasher } from '../index.js';
import { createAuditSink } from '../observability/audit.js';
import { logger } from '../observability/logger.js';
import { createBulkDynamoDbClient } from '../storage/bulk-dynamodb-client.js';
import { createDynamoDbClient } from '../storage/dynamodb-client.js';
import type { Platform } from './platform.js';

/**
 * Lambda, `npm start`, Deno and Bun: the Node entry (native argon2, WASM fallback), the SDK's
 * credential chain, Powertools logs and metrics. One cached DynamoDB client per configuration.
 */
export const nodePlatform: Platform = {
  createPasswordHasher,
  dynamoDb: createDynamoDbClient,
  warn: (message, fields) => logger.warn(message, fields ?? {}),
  // Pure: a bundle that never uses the platform (the JWKS function) drops it with its imports.
  audit: /* @__PURE__ */ createAuditSink(),
};

/**
 * For import, inventory and the rehash job: the same, with a DynamoDB client for long-running
 * batches (adaptive retries, longer timeouts; see bulk-dynamodb-client.ts). Not cached: the CLI
 * destroys it when done, and a Lambda container builds it once.
 */
export function nodeBulkPlatform(): Platform {
  return { ...nodePlatform, dynamoDb: createBulkDynamoDbClient };
}
