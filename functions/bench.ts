/**
 * The bench as a Lambda function, invoked directly (no HTTP route): event
 * `{ grid?, quick?, budgetMs?, concurrency?, memoryBudgetMiB? }` -> the same JSON as `npm run bench`.
 * It runs on the hardware the login function gets at this memory size; `passlane bench --remote`
 * drives it across memory sizes. See packages/server/src/cli/bench/README.md.
 */
import type { Context } from 'aws-lambda';
import { settingsFromEvent, type BenchEvent } from '../packages/server/src/cli/bench/lambda-event.js';
import { runBench } from '../packages/server/src/cli/bench/run-bench.js';
import type { BenchResult } from '../packages/server/src/cli/bench/types.js';

export type BenchContext = Partial<Pick<Context, 'memoryLimitInMB' | 'getRemainingTimeInMillis'>>;

export async function handler(event: BenchEvent | null | undefined, context: BenchContext = {}): Promise<BenchResult> {
  const memorySizeMB = Number(context.memoryLimitInMB ?? process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE) || undefined;
  const remainingMs = context.getRemainingTimeInMillis?.();
  const settings = settingsFromEvent(event ?? {}, {
    ...(memorySizeMB !== undefined && { memorySizeMB }),
    ...(remainingMs !== undefined && { remainingSeconds: remainingMs / 1000 }),
  });
  return runBench(settings, memorySizeMB === undefined ? {} : { lambdaMemorySizeMB: memorySizeMB });
}
