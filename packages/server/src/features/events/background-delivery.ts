import type { EventSweepDependencies } from './dependencies.js';
import { deliverAccountEvents } from './deliver-account-events.js';
import { describeDeliveryError, sweepPendingEvents } from './sweep-pending-events.js';

/** The in-process deliverer of a long-lived host (Node, Bun, Deno): features/events/README.md. */
export interface BackgroundDelivery {
  /** An account's write appended events: deliver them now (the outbox's `afterAppend`). */
  deliverSoon(accountId: string): void;
  /** Stops the sweeps and waits for the deliveries under way. */
  stop(): Promise<void>;
}

/**
 * Delivers each account right after a write appended to its outbox, and sweeps every pending
 * outbox at start and then every `sweepIntervalMs` (a crash's leftovers, retries whose backoff ran
 * out, other processes' appends). One delivery per account at a time in this process (the lease
 * keeps other processes out); an append during one runs the account once more after it.
 */
export function startBackgroundDelivery(deps: EventSweepDependencies, options: { sweepIntervalMs: number }): BackgroundDelivery {
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let sweeping: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const abort = new AbortController();

  const deliver = (accountId: string): void => {
    if (stopped) return;
    if (running.has(accountId)) {
      again.add(accountId);
      return;
    }
    const run = deliverAccountEvents(deps, accountId)
      .then(
        () => undefined,
        (error: unknown) => deps.log.warn('event delivery stopped by an error; the next sweep resumes it', { accountId, error: describeDeliveryError(error) }),
      )
      .finally(() => {
        running.delete(accountId);
        if (again.delete(accountId)) deliver(accountId);
      });
    running.set(accountId, run);
  };

  const sweep = (): void => {
    timer = undefined;
    sweeping = sweepPendingEvents(deps, { signal: abort.signal })
      .then(
        (result) => {
          if (result.accounts > 0) deps.log.info('events swept', { ...result.outcomes, errors: result.errors });
        },
        (error: unknown) => deps.log.warn('event sweep failed; the next one tries again', { error: describeDeliveryError(error) }),
      )
      .finally(() => {
        sweeping = undefined;
        if (!stopped) timer = setTimeout(sweep, options.sweepIntervalMs);
      });
  };
  sweep();

  return {
    deliverSoon: deliver,
    async stop() {
      stopped = true;
      abort.abort();
      if (timer !== undefined) clearTimeout(timer);
      await Promise.all([sweeping, ...running.values()]);
    },
  };
}
