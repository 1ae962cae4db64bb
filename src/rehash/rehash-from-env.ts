import { getSecretEnv } from '../app/secret-env.js';
import { createPasswordHasher } from '../index.js';
import { logger } from '../observability/logger.js';
import { createBulkDynamoDbClient } from '../storage/bulk-dynamodb-client.js';
import { tableNameFromEnv } from '../storage/table.js';
import { AccountStore } from '../storage/account-store.js';
import { JobCursorStore } from '../storage/job-cursor-store.js';
import { onceUntilFailure } from '../shared/once-until-failure.js';
import { RehashInputInvalidError } from './errors.js';
import type { RehashJobDependencies } from './run-rehash-job.js';

type Env = Record<string, string | undefined>;

/**
 * The job's parts from the server's configuration: the same table (PASSLANE_TABLE,
 * DYNAMODB_ENDPOINT, AWS_REGION), the same hashing policy and pepper keys (PASSLANE_PEPPER_KEYS),
 * so wrapped and re-sealed records are exactly what a login would accept.
 */
export function createRehashDependencies(env: Env): RehashJobDependencies {
  const client = createBulkDynamoDbClient(env);
  const table = tableNameFromEnv(env);
  return {
    hasher: createPasswordHasher({ env, logger: { warn: (message, fields) => logger.warn(message, fields ?? {}) } }),
    users: new AccountStore(client, table),
    cursors: new JobCursorStore(client, table),
  };
}

/**
 * Once per container, like the HTTP functions' dependencies, from process.env with the pepper keys
 * fetched from SSM when the deployment names a parameter (PASSLANE_PEPPER_KEYS_PARAMETER). A
 * failed build is not cached: the next invocation tries again.
 */
export const getRehashDependencies: () => Promise<RehashJobDependencies> = /* @__PURE__ */ onceUntilFailure(async () =>
  createRehashDependencies(await getSecretEnv()),
);

/** PASSLANE_REHASH_WRITES_PER_SECOND: the Lambda's write rate (default 100). */
export function rehashWritesPerSecondFromEnv(env: Env): number | undefined {
  const text = env.PASSLANE_REHASH_WRITES_PER_SECOND?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 100_000) {
    throw new RehashInputInvalidError('PASSLANE_REHASH_WRITES_PER_SECOND must be a whole number from 1 to 100000');
  }
  return value;
}
