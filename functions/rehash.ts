/**
 * The rehash job (no HTTP route): invoke with `{ cursor?, dryRun?, segments? }`, get
 * `{ cursor, done, counts }`. Run it from a schedule (it resumes from the cursor stored in the
 * table) or a Step Functions loop (pass `cursor` back until `done`). See src/rehash/README.md.
 */
import { logger } from '../src/observability/logger.js';
import { createRehashHandler } from '../src/rehash/rehash-handler.js';
import { getRehashDependencies, rehashWritesPerSecondFromEnv } from '../src/rehash/rehash-from-env.js';

const maxWritesPerSecond = rehashWritesPerSecondFromEnv(process.env);

export const handler = createRehashHandler(getRehashDependencies, logger, maxWritesPerSecond === undefined ? {} : { maxWritesPerSecond });
