/**
 * The edge entries' per-request list of appended accounts (runtimes/workers/request-appends.ts)
 * over a real AsyncLocalStorage: requests answered at once in one isolate share one outbox hook,
 * and each must get the accounts of its own writes only.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { requestAppends } from '../packages/server/src/runtimes/workers/request-appends.js';

describe('requestAppends', () => {
  it('keeps interleaved requests’ appends apart', async () => {
    const appends = requestAppends(new AsyncLocalStorage<Set<string>>());
    // One request's writes, each committing after a wait, as a use case's awaits interleave with another request's.
    const request = (accounts: string[], waitMs: number) =>
      appends.collect(async () => {
        for (const account of accounts) {
          await sleep(waitMs);
          appends.record(account);
        }
        return new Response(null, { status: 204 });
      });
    const [one, two, none] = await Promise.all([request(['a1', 'a2', 'a1'], 3), request(['b1'], 5), request([], 1)]);
    expect(one.accountIds).toEqual(['a1', 'a2']);
    expect(two.accountIds).toEqual(['b1']);
    expect(none.accountIds).toEqual([]);
    expect(one.response.status).toBe(204);
  });

  it('records nothing outside a request', () => {
    const appends = requestAppends(new AsyncLocalStorage<Set<string>>());
    expect(() => appends.record('stray')).not.toThrow();
  });
});
