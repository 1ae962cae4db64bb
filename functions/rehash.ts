/**
 * The rehash job (no HTTP route): invoke with `{ cursor?, dryRun?, segments? }`, get
 * `{ cursor, done, counts }`. Run it from a schedule (it resumes from the cursor stored in the
 * table) or a Step Functions loop (pass `cursor` back until `done`). See src/features/rehash/README.md.
 */
import { readRehashConfig } from '../src/config/rehash-config.js';
import { logger } from '../src/observability/logger.js';
import { createRehashHandler } from '../src/features/rehash/rehash-handler.js';
import { getRehashDependencies } from '../src/runtimes/lambda/lambda-dependencies.js';

const { writesPerSecond } = readRehashConfig(process.env);

export const handler = createRehashHandler(getRehashDependencies, logger, writesPerSecond === undefined ? {} : { maxWritesPerSecond: writesPerSecond });
