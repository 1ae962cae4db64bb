import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { cachedPerConnection } from '../../shared/aws-connection.js';
import { dynamoDbClientConfig } from '../../storage/dynamodb-client.js';
import type { DynamoDbConnection } from '../../storage/settings.js';
import { sendItemRequestsDirectly } from './direct-requests.js';
import { readLambdaFastPaths } from './fast-paths.js';
import { lambdaEnv } from './lambda-env.js';

/** The functions' client: the storage's client, with the item requests by the short path unless switched off. */
export function newLambdaDynamoDbClient(storage: DynamoDbConnection, fastPaths: boolean = readLambdaFastPaths(lambdaEnv())): DynamoDBClient {
  const client = new DynamoDBClient(dynamoDbClientConfig(storage));
  if (fastPaths) sendItemRequestsDirectly(client);
  return client;
}

/** One client per container and configuration (aws-connection.ts), as the storage's createDynamoDbClient. */
export const createLambdaDynamoDbClient: (storage: DynamoDbConnection) => DynamoDBClient = cachedPerConnection((storage) => newLambdaDynamoDbClient(storage));
