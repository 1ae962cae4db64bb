import { DeadlineExceededError, withinDeadline } from '../shared/within-deadline.js';
import { HookUnavailableError } from './errors.js';

/** One hook call under its deadline (shared/within-deadline.ts): a late answer is 'timeout', any other unclassified failure 'network'. */
export async function withinTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await withinDeadline(timeoutMs, run);
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw new HookUnavailableError('timeout', { cause: error });
    if (error instanceof HookUnavailableError) throw error;
    throw new HookUnavailableError('network', { cause: error });
  }
}
