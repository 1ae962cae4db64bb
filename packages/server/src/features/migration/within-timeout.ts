import { MigrationUnavailableError } from './migration-source.js';

/**
 * Runs one question to the old system under a deadline: the signal aborts the request, and the
 * answer is given up at the deadline even if the transport ignores the signal (an SDK resolving
 * credentials). What the run throws unclassified becomes 'network', or 'timeout' once aborted.
 */
export async function withinTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new MigrationUnavailableError('timeout');
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), expired]);
  } catch (error) {
    if (controller.signal.aborted) throw error instanceof MigrationUnavailableError && error.reason === 'timeout' ? error : new MigrationUnavailableError('timeout', { cause: error });
    if (error instanceof MigrationUnavailableError) throw error;
    throw new MigrationUnavailableError('network', { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
