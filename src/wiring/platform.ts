import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConnection } from '../config/storage-config.js';
import type { PasswordHasher, PasswordHasherOptions } from '../hashing/create-password-hasher.js';
import type { AuthDependencies } from '../use-cases/dependencies.js';

/**
 * What differs between the places passlane runs, and nothing else: which hashing entry the
 * bundle holds (Node's native binding or the edge's imported WASM module), how a DynamoDB client
 * gets its credentials, and where logs and audit events go. build-dependencies.ts turns the
 * configuration into services the same way for every platform.
 */
export interface Platform {
  createPasswordHasher(options: PasswordHasherOptions): PasswordHasher;
  /** Host limits on hashing (an isolate's memory), on top of the configuration. */
  hasherLimits?: Pick<PasswordHasherOptions, 'concurrency' | 'limits'>;
  dynamoDb(connection: DynamoDbConnection): DynamoDBClient;
  warn(message: string, fields?: Record<string, unknown>): void;
  audit: AuthDependencies['audit'];
}
