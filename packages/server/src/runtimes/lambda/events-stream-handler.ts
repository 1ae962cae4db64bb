/**
 * The Lambda host of account events (functions/events.ts): the table's stream (keys only,
 * filtered by the event source mapping to `outbox#` keys) rings, and each account whose outbox
 * was written gets its events delivered, in order, by the one delivery every host uses
 * (features/events, deliverAccountEvents). The stream is a doorbell, not the data: a record
 * says "this account has events waiting", the outbox item holds them.
 *
 * - Accounts are taken in the order their first record appears, each once per batch (one
 *   delivery sends everything its outbox holds; later records of the same account ring for
 *   events the first delivery already took or, if they came after it, are rung again by the
 *   next batch).
 * - No account's delivery starts unless the invocation's time left (less a reserve) covers the
 *   longest delivery so far: one not started is reported like one not delivered.
 * - An account not fully delivered (the destination failed or is in its backoff, or another
 *   deliverer holds the outbox's lease) is tried again within the invocation while its time
 *   allows, with a growing pause; still not delivered, its first record's SequenceNumber goes
 *   into `batchItemFailures` (ReportBatchItemFailures), so Lambda retries the batch from there
 *   and the account's later records stay behind it: order per account holds. What Lambda
 *   gives up on (retries or record age spent) goes to the dead-letter queue, and the events
 *   stay in their outbox for `passlane events deliver` (infra/README.md, "Account events").
 * - A delivery that throws (the table unreachable) counts as not delivered, for that account
 *   only; failing to build the dependencies fails the invocation (an Errors alarm), never a
 *   record silently dropped.
 *
 * Removals (`REMOVE`: an outbox deleted, the end of a delivery) are skipped: the mapping's filter
 * can only look at the record's `dynamodb` key (its keys), not at the kind of change.
 *
 * Logged: account ids (the token's `sub`, no address), outcomes and counts; never an event's
 * data (addresses) or a destination's secret.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context as LambdaContext, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../observability/logger.js';
import { metrics } from '../../observability/metrics.js';
import { safeErrorFields } from '../../observability/safe-error.js';
import type { DeliveryOutcome } from '../../features/events/deliver-account-events.js';
import { OUTBOX_KEY_PREFIX } from '../../storage/table.js';

/** What one delivery attempt of an account's outbox came to. */
export type StreamDeliveryOutcome = DeliveryOutcome;

/** Nothing left to send for the account: its record is done. Anything else is tried again. */
const DONE: ReadonlySet<StreamDeliveryOutcome> = new Set(['delivered', 'nothing']);

export interface StreamAccount {
  accountId: string;
  /** Its first record's: where Lambda resumes when the account is not fully delivered. */
  sequenceNumber: string;
}

export interface EventsStreamHandlerOptions {
  /** The first pause between two rounds of retries in one invocation; each next one doubles. */
  firstPauseMs: number;
  /** The longest pause. */
  maxPauseMs: number;
  /** Left unused at the end of an invocation (answering, flushing logs and metrics). */
  reserveMs: number;
  /** How the handler waits (tests pass a clock of their own). */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_STREAM_HANDLER_OPTIONS: EventsStreamHandlerOptions = {
  firstPauseMs: 1_000,
  maxPauseMs: 8_000,
  reserveMs: 5_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The accounts a batch rings for, each once, in the order of their first record. Records whose
 * key is not an outbox's (the filter lets none through; a changed filter might) or that carry
 * no sequence number are skipped with a warning: nothing there to deliver.
 */
export function accountsOfRecords(records: readonly DynamoDBRecord[], warn: (message: string, fields: Record<string, unknown>) => void = () => {}): StreamAccount[] {
  const accounts = new Map<string, StreamAccount>();
  for (const record of records) {
    // An outbox deleted: its delivery ended, nothing to ring for.
    if (record.eventName === 'REMOVE') continue;
    const key = record.dynamodb?.Keys?.pk?.S;
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (key === undefined || !key.startsWith(OUTBOX_KEY_PREFIX) || key.length === OUTBOX_KEY_PREFIX.length || sequenceNumber === undefined) {
      warn('stream record skipped: not an outbox key', { eventName: record.eventName, hasSequenceNumber: sequenceNumber !== undefined });
      continue;
    }
    const accountId = key.slice(OUTBOX_KEY_PREFIX.length);
    if (!accounts.has(accountId)) accounts.set(accountId, { accountId, sequenceNumber });
  }
  return [...accounts.values()];
}

/** The time an invocation has left (the Lambda context's). */
export interface TimeLeft {
  getRemainingTimeInMillis(): number;
}

/**
 * The handler without the Lambda middleware: a stream event in, the records to retry out.
 * `deliver` is one delivery attempt of one account's outbox (deliverAccountEvents over the
 * function's dependencies).
 */
export function deliverStreamBatch(
  deliver: (accountId: string) => Promise<StreamDeliveryOutcome>,
  options: EventsStreamHandlerOptions = DEFAULT_STREAM_HANDLER_OPTIONS,
  log: Pick<typeof logger, 'info' | 'warn'> = logger,
  count: (name: string, value: number) => void = () => {},
) {
  return async (event: DynamoDBStreamEvent, context: TimeLeft): Promise<DynamoDBBatchResponse> => {
    const accounts = accountsOfRecords(event.Records ?? [], (message, fields) => log.warn(message, fields));
    const pending = new Map(accounts.map((account) => [account.accountId, account]));
    const last = new Map<string, StreamDeliveryOutcome | 'error'>();
    let pause = options.firstPauseMs;
    let longestRoundMs = 0;
    let longestDeliveryMs = 0;
    let rounds = 0;
    let outOfTime = false;
    for (;;) {
      const started = Date.now();
      rounds++;
      // One account after another: each delivery is its own account's, and a destination that
      // is down fails them alike, so sending them side by side would only multiply the load on it.
      for (const account of [...pending.values()]) {
        // No delivery started that might not end before the invocation does (a timeout fails the
        // whole batch): the account stays pending and is reported, and Lambda retries from it.
        if (context.getRemainingTimeInMillis() < options.reserveMs + longestDeliveryMs) {
          outOfTime = true;
          break;
        }
        const deliveryStarted = Date.now();
        let outcome: StreamDeliveryOutcome | 'error';
        try {
          outcome = await deliver(account.accountId);
        } catch (error) {
          outcome = 'error';
          log.warn('account events: delivery failed', { accountId: account.accountId, error: safeErrorFields(error) });
        }
        longestDeliveryMs = Math.max(longestDeliveryMs, Date.now() - deliveryStarted);
        last.set(account.accountId, outcome);
        if (outcome !== 'error' && DONE.has(outcome)) pending.delete(account.accountId);
      }
      longestRoundMs = Math.max(longestRoundMs, Date.now() - started);
      if (pending.size === 0 || outOfTime) break;
      // Another round only if it fits: the pause, a round as long as the longest so far, the reserve.
      if (context.getRemainingTimeInMillis() < pause + longestRoundMs + options.reserveMs) break;
      await options.sleep(pause);
      pause = Math.min(pause * 2, options.maxPauseMs);
    }
    const outcomes: Record<string, number> = {};
    for (const outcome of last.values()) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    count('AccountsDelivered', accounts.length - pending.size);
    count('AccountsNotDelivered', pending.size);
    const retried = [...pending.values()].map((account) => account.accountId);
    log.info('account events: stream batch done', { records: event.Records?.length ?? 0, accounts: accounts.length, rounds, outcomes, ...(retried.length > 0 && { retried }) });
    return { batchItemFailures: [...pending.values()].map((account) => ({ itemIdentifier: account.sequenceNumber })) };
  };
}

/**
 * The events function's handler: the stream batch delivered with the Powertools logger's Lambda
 * context and metrics. `deliver` is built on first use (the dependencies, kept for the
 * container); building them failing throws, and the whole batch is retried.
 */
export function lambdaEventsStreamHandler(deliver: () => Promise<(accountId: string) => Promise<StreamDeliveryOutcome>>, options: EventsStreamHandlerOptions = DEFAULT_STREAM_HANDLER_OPTIONS) {
  const count = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Count, value);
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>(async (event: DynamoDBStreamEvent, context: LambdaContext) => {
    const send = await deliver();
    return deliverStreamBatch(send, options, logger, count)(event, context);
  })
    // The event holds keys only (account ids), but nothing here needs it in the logs.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logMetrics(metrics));
}
