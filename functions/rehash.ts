/**
 * The rehash job (no HTTP route): invoke with `{ cursor?, dryRun?, segments? }`, get
 * `{ cursor, done, counts }`. Run it from a schedule (it resumes from the cursor stored in the
 * table) or a Step Functions loop (pass `cursor` back until `done`). See packages/server/src/features/rehash/README.md.
 */
import { readRehashConfig } from '../packages/server/src/config/rehash-config.js';
import { logger } from '../packages/server/src/observability/logger.js';
import { createRehashHandler } from '../packages/server/src/features/rehash/rehash-handler.js';
import { getRehashDependencies } from '../packages/server/src/runtimes/lambda/lambda-dependencies.js';
import { lambdaEnv } from '../packages/server/src/runtimes/lambda/lambda-env.js';

const { writesPerSecond } = readRehashConfig(lambdaEnv());

export const handler = createRehashHandler(getRehashDependencies, logger, writesPerSecond === undefined ? {} : { maxWritesPerSecond: writesPerSecond });
