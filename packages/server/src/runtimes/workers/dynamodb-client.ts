import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConnection } from '../../storage/settings.js';
import { dynamoDbClientConfig } from '../../storage/dynamodb-client.js';
import { workerConnection } from './worker-connection.js';

/** The shared client settings (retries, timeouts, local endpoint), with the region and credentials a Worker binds. */
export function workerDynamoDbClientConfig(storage: DynamoDbConnection): DynamoDBClientConfig {
  return workerConnection(dynamoDbClientConfig(storage), storage);
}

export function createWorkerDynamoDbClient(storage: DynamoDbConnection): DynamoDBClient {
  return new DynamoDBClient(workerDynamoDbClientConfig(storage));
}
