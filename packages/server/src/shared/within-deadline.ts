/** A call to another system outlived its deadline. */
export class DeadlineExceededError extends Error {
  readonly code = 'ERR_DEADLINE_EXCEEDED';
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`no answer within ${timeoutMs} ms`, options);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Runs one call to another system under a deadline: the signal aborts the request (fetch, the
 * SDK's abortSignal), and the answer is given up at the deadline even if the transport ignores the
 * signal (an SDK resolving credentials). Past the deadline anything the call throws is a
 * DeadlineExceededError; before it, the call's own error. Callers name both in their own terms.
 */
export async function withinDeadline<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceededError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), expired]);
  } catch (error) {
    if (controller.signal.aborted && !(error instanceof DeadlineExceededError)) throw new DeadlineExceededError(timeoutMs, { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
