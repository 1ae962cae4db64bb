import type { AwsConnection } from '../shared/aws-connection.js';

/** Where DynamoDB is and how to sign for it (config/storage-config.ts reads it from DYNAMODB_ENDPOINT, AWS_REGION, AWS_*). */
export type DynamoDbConnection = AwsConnection;

/** The one table and the connection to it. */
export interface StorageConfig extends DynamoDbConnection {
  /** The table every item lives in (table.ts has the layout); PASSLANE_TABLE. */
  table: string;
}

export const DEFAULT_TABLE_NAME = 'passlane-users';
