import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readConfig, type PasslaneConfig } from '../../config/read-config.js';
import { DEPLOYED_VERIFY_BUDGET } from 'passlane/common';
import { createBulkDynamoDbClient } from '../../storage/bulk-dynamodb-client.js';
import { nodePlatform } from '../../runtimes/node/node-platform.js';
import type { Platform } from '../../wiring/platform.js';
import { describeFailure, writeLine, type CommandIo } from './command-io.js';

export interface BulkTools {
  config: PasslaneConfig;
  /** The API's platform with one bulk client, which the command destroys when it is done. */
  platform: Platform;
  client: DynamoDBClient;
}

/**
 * What import, inventory and rehash build from: the server's configuration (same table, policy
 * and pepper keys as the API, and the deployed functions' verify budget unless
 * PASSLANE_VERIFY_MEMORY_MB / PASSLANE_VERIFY_TIME_MS say otherwise) and a batch-tuned DynamoDB
 * client. Warnings go to stderr as one JSON line, so stdout stays the command's output
 * (`--json`). Undefined, after saying why on stderr, when the configuration is bad.
 */
export function openBulkTools(io: CommandIo, command: string): BulkTools | undefined {
  let read: PasslaneConfig;
  try {
    read = readConfig(io.env);
  } catch (error) {
    // A bad setting: say which, and let the command exit 2 as for bad arguments.
    writeLine(io.stderr, `passlane ${command}: ${describeFailure(error)}`);
    return undefined;
  }
  // Records are judged by what the deployed functions can verify, unless told otherwise.
  const config = { ...read, hasher: { ...read.hasher, verifyBudget: { ...DEPLOYED_VERIFY_BUDGET, ...read.hasher.verifyBudget } } };
  const client = createBulkDynamoDbClient(config.storage);
  const platform: Platform = {
    ...nodePlatform,
    dynamoDb: () => client,
    warn: (message, fields) => io.stderr.write(`${JSON.stringify({ level: 'WARN', service: 'passlane', message, ...fields })}\n`),
  };
  return { config, platform, client };
}
