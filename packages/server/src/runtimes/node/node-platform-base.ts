import { createPasswordHasher } from 'passlane';
import { auditToPowertools } from '../../observability/audit.js';
import { logger } from '../../observability/logger.js';
import { createBulkDynamoDbClient } from '../../storage/bulk-dynamodb-client.js';
import { createDynamoDbClient } from '../../storage/dynamodb-client.js';
import { createNodeJwsSigner } from '../../features/tokens/node-jws-signer.js';
import type { FunctionMigrationConfig } from '../../features/migration/settings.js';
import type { MigrationSource } from '../../features/migration/migration-source.js';
import type { Platform } from '../../wiring/platform.js';
import { lambdaHookInvoker } from './lambda-hook-invoker.js';

/**
 * Lambda, `npm start`, Deno and Bun: the Node entry (native argon2, WASM fallback), the SDK's
 * credential chain, node:crypto for token signatures, Powertools logs and metrics. One cached
 * DynamoDB client per configuration. Without the password blocklist: for the Lambda functions
 * that never set a password (login, rehash), whose bundles then leave its data out: they import
 * this file, not node-platform.ts, whose object spread a bundle keeps even where unused.
 */
export const nodePlatformWithoutBlocklist: Platform = {
  createPasswordHasher,
  dynamoDb: createDynamoDbClient,
  jwsSigner: createNodeJwsSigner,
  warn,
  audit: auditToPowertools,
  mail: { log: { info: mailLogInfo, warn } },
  migrationFunction: lambdaMigrationSource,
  hookInvoker: lambdaHookInvoker,
};

/**
 * For import, inventory and the rehash job: the same, with a DynamoDB client for long-running
 * batches (adaptive retries, longer timeouts; see bulk-dynamodb-client.ts). Not cached: the CLI
 * destroys it when done, and a Lambda container builds it once.
 */
export function nodeBulkPlatform(): Platform {
  return { ...nodePlatformWithoutBlocklist, dynamoDb: createBulkDynamoDbClient };
}

function warn(message: string, fields?: Record<string, unknown>): void {
  logger.warn(message, fields ?? {});
}

/** The mail's `mail sent` lines (its warnings go through warn). */
function mailLogInfo(message: string, fields?: Record<string, unknown>): void {
  logger.info(message, fields ?? {});
}

/** A dynamic import: the Lambda bundles keep the SDK's Lambda client in a chunk read only when configured. */
async function lambdaMigrationSource(config: FunctionMigrationConfig): Promise<MigrationSource> {
  return (await import('../../features/migration/lambda-migration-source.js')).createLambdaMigrationSource(config);
}
