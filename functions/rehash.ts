/**
 * The rehash job (no HTTP route): invoke with `{ cursor?, dryRun?, segments? }`, get
 * `{ cursor, done, counts }`. Run it from a schedule (it resumes from the cursor stored in the
 * table) or a Step Functions loop (pass `cursor` back until `done`). See packages/server/src/features/rehash/README.md.
 */
import { readRehashConfig } from '../packages/server/src/config/rehash-config.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { createRehashHandler } from '../packages/server/src/features/rehash/rehash-handler.js';
import { configWithSecrets } from '../packages/server/src/runtimes/lambda/secret-env.js';
import { nodeBulkPlatform } from '../packages/server/src/runtimes/node/node-platform-base.js';
import { onceUntilFailure } from '../packages/server/src/shared/once-until-failure.js';
import { buildRehashDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';

const { writesPerSecond } = readRehashConfig(lambdaEnv());

// Built on the first invocation, with the pepper keys from SSM when a parameter is named, and kept for the container's life.
const dependencies = onceUntilFailure(async () => buildRehashDependencies(await configWithSecrets(), nodeBulkPlatform()));

export const handler = createRehashHandler(dependencies, logger, writesPerSecond === undefined ? {} : { maxWritesPerSecond: writesPerSecond });
