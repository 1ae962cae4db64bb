// `@passlane/server/storage`: the one DynamoDB table and the stores over it (see table.ts for the layout).
export * from './account-store.js';
export * from './login-guard-store.js';
export * from './rate-limit-store.js';
export * from './job-cursor-store.js';
export * from './errors.js';
export { createDynamoDbClient, dynamoDbClientConfig } from './dynamodb-client.js';
export { createBulkDynamoDbClient } from './bulk-dynamodb-client.js';
export type { DynamoDbConnection, StorageConfig } from './settings.js';
export { DEFAULT_TABLE_NAME, ensureTable, tableDefinition, type EnsureTableOptions } from './table.js';
export * from './mfa-store.js';
