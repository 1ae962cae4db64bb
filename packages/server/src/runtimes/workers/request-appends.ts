/**
 * The accounts one request's writes appended account events to, for its host to deliver after the
 * response (edge-events.ts). The services are built once per isolate and serve every request in
 * it, concurrent ones included, so the outbox's one `afterAppend` (Platform.afterEventAppend)
 * cannot hold a request's list itself: it adds to the list of the request it runs in, found
 * through an AsyncLocalStorage (each host supplies its own: workerd's `node:async_hooks` under the
 * `nodejs_als` flag, Vercel Edge's global). A write outside any request (none today) is left to
 * the sweep.
 */

/** What this needs of an AsyncLocalStorage (Node's API, which workerd and Vercel Edge implement). */
export interface RequestStorage<T> {
  run<R>(store: T, callback: () => R): R;
  getStore(): T | undefined;
}

export interface RequestAppends {
  /** For Platform.afterEventAppend: the current request appended to this account's outbox. */
  record(accountId: string): void;
  /** Answers one request, and says which accounts its writes appended events to (those that committed before the answer). */
  collect(answer: () => Promise<Response>): Promise<{ response: Response; accountIds: string[] }>;
}

export function requestAppends(storage: RequestStorage<Set<string>>): RequestAppends {
  return {
    record(accountId) {
      storage.getStore()?.add(accountId);
    },
    async collect(answer) {
      const appended = new Set<string>();
      const response = await storage.run(appended, answer);
      return { response, accountIds: [...appended] };
    },
  };
}
