import { DeadlineExceededError, withinDeadline } from '../../shared/within-deadline.js';
import { MigrationUnavailableError } from './migration-source.js';

/** One question to the old system under its deadline (shared/within-deadline.ts): a late answer is 'timeout', any other unclassified failure 'network'. */
export async function withinTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await withinDeadline(timeoutMs, run);
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw new MigrationUnavailableError('timeout', { cause: error });
    if (error instanceof MigrationUnavailableError) throw error;
    throw new MigrationUnavailableError('network', { cause: error });
  }
}
