import type { Logger } from '@aws-lambda-powertools/logger';
import { parseRehashEvent } from './parse-rehash-event.js';
import { runRehashJob, type RehashJobDependencies, type RehashJobOptions, type RehashProblem } from './run-rehash-job.js';
import type { RehashCounts } from './rehash-counts.js';

/** Left for writing the cursor and returning after the last account: well above one page of work. */
export const LAMBDA_TIME_MARGIN_MS = 10_000;

export interface RehashOutput {
  cursor: string;
  done: boolean;
  dryRun: boolean;
  counts: RehashCounts;
  problems: RehashProblem[];
}

export interface LambdaTimeLeft {
  getRemainingTimeInMillis(): number;
}

/**
 * The Lambda entry, minus wiring: `{ cursor?, dryRun?, segments? }` in, `{ cursor, done, counts }`
 * out, one run within the invocation's time minus a margin. The log line has counts and userIds
 * of problem records, never emails or hashes; the cursor (which holds a key) is returned, not logged.
 */
export function createRehashHandler(
  getDeps: () => Promise<RehashJobDependencies>,
  log: Pick<Logger, 'info'>,
  extra: Pick<RehashJobOptions, 'maxWritesPerSecond' | 'pageSize'> = {},
) {
  return async (event: unknown, context: LambdaTimeLeft): Promise<RehashOutput> => {
    const input = parseRehashEvent(event);
    const result = await runRehashJob(await getDeps(), {
      ...extra,
      ...input,
      remainingMs: () => context.getRemainingTimeInMillis() - LAMBDA_TIME_MARGIN_MS,
    });
    log.info('rehash run finished', { done: result.done, dryRun: result.dryRun, segments: result.segments, counts: result.counts, problems: result.problems });
    return { cursor: result.cursor, done: result.done, dryRun: result.dryRun, counts: result.counts, problems: result.problems };
  };
}
