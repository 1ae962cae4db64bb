import type { EventSweepDependencies } from './dependencies.js';
import { deliverAccountEvents, type DeliveryOutcome } from './deliver-account-events.js';

/** What one sweep did: accounts found pending, each one's outcome, and those that threw (storage). */
export interface SweepResult {
  accounts: number;
  outcomes: Record<DeliveryOutcome, number>;
  errors: number;
}

/**
 * Every pending outbox, each delivered (deliver-account-events.ts), for the hosts with no stream
 * to ring for them: what a crash left, what waits for its retry, what another process appended.
 * It pages through a Scan of the whole table (storage/outbox-delivery-store.ts, scanPending: its
 * cost is the table's size per sweep). One account at a time; an account whose delivery throws
 * (storage) is logged and left for the next sweep. `signal` stops it between accounts.
 */
export async function sweepPendingEvents(deps: EventSweepDependencies, options: { signal?: AbortSignal } = {}): Promise<SweepResult> {
  const result: SweepResult = { accounts: 0, outcomes: { delivered: 0, nothing: 0, leased: 0, waiting: 0, failed: 0 }, errors: 0 };
  let cursor: string | undefined;
  do {
    if (options.signal?.aborted) break;
    const page = await deps.pending.scanPending(cursor === undefined ? {} : { cursor });
    for (const accountId of page.accountIds) {
      if (options.signal?.aborted) break;
      result.accounts += 1;
      try {
        result.outcomes[await deliverAccountEvents(deps, accountId)] += 1;
      } catch (error) {
        result.errors += 1;
        deps.log.warn('event delivery stopped by an error; the next sweep resumes it', { accountId, error: describeDeliveryError(error) });
      }
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return result;
}

/** Our typed errors (`ERR_...`) by code and message, which they keep safe; any other by its name only (an SDK's message can quote a request). */
export function describeDeliveryError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERR_') ? `${code}: ${error.message}` : error.name;
}
