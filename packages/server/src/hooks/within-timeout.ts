import { HookUnavailableError } from './errors.js';

/**
 * Runs one hook call under a deadline: the signal aborts the request (fetch, the SDK's
 * abortSignal), and the answer is given up at the deadline even if the transport ignores the
 * signal. What the run throws unclassified becomes 'network', or 'timeout' once aborted.
 */
export async function withinTimeout<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new HookUnavailableError('timeout');
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), expired]);
  } catch (error) {
    if (controller.signal.aborted) throw error instanceof HookUnavailableError && error.reason === 'timeout' ? error : new HookUnavailableError('timeout', { cause: error });
    if (error instanceof HookUnavailableError) throw error;
    throw new HookUnavailableError('network', { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
