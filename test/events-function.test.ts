/**
 * The events function (functions/events.ts) as Lambda runs it, fed by the table's stream: real
 * stream events (keys only, outbox# keys, rising sequence numbers), the real handler and delivery
 * against DynamoDB Local, EventBridge through the real SDK client to a local PutEvents endpoint
 * (AWS itself cannot run here), and a real webhook receiver that verifies every request with the
 * `standardwebhooks` package. What is checked: order per account, each account once per batch,
 * the partial batch response (an account not delivered reports its first record's SequenceNumber,
 * and the retry from there delivers it, in order), the retries within an invocation while its
 * time allows, and a deployment with nowhere to deliver failing instead of dropping events.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import type { AccountEvent } from '../packages/server/src/events/account-event.js';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { DynamoDBClient as Client } from '@aws-sdk/client-dynamodb';
import { PASSLANE_FUNCTIONS } from '../packages/server/src/cdk/functions.js';
import { retryDelayMs } from '../packages/server/src/features/events/retry-delay.js';
import { DEFAULT_EVENT_DELIVERY } from '../packages/server/src/features/events/settings.js';
import { accountsOfRecords, deliverStreamBatch, type StreamDeliveryOutcome } from '../packages/server/src/runtimes/lambda/events-stream-handler.js';
import { startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { lambdaContext } from './support/lambda-context.js';
import { startLocalEventBridgeEndpoint, type LocalEventBridgeEndpoint, type PutEventsEntry } from './support/local-eventbridge-endpoint.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { outboxStreamEvent, streamRecord } from './support/outbox-stream-event.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

type Handler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

const TABLE = 'passlane-events-function';
const BUS = 'team-events';
const SECRET = newWebhookSecret();
const savedEnv = { ...process.env };

let dynamo: RunningDynamoDb;
let bridge: LocalEventBridgeEndpoint;
let receiver: WebhookReceiver;
let client: DynamoDBClient;
let baseEnv: Record<string, string>;

beforeAll(async () => {
  [dynamo, bridge, receiver] = await Promise.all([startDynamoDbLocal(), startLocalEventBridgeEndpoint(), startWebhookReceiver([SECRET])]);
  baseEnv = {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDEVENTS',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    // The SDK's own variable: the EventBridge client's calls go to the local endpoint.
    AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.endpoint,
    AWS_LAMBDA_FUNCTION_NAME: 'passlane-dev-events',
    PASSLANE_TABLE: TABLE,
    PASSLANE_EVENT_BUS: BUS,
    // Retries due almost at once, so a test's second invocation finds the head due.
    PASSLANE_EVENT_RETRY_BASE_MS: '10',
    PASSLANE_EVENT_RETRY_MAX_S: '1',
  };
  client = new Client(dynamoDbClientConfig(readStorageConfig(baseEnv)));
  await ensureTable(client, TABLE);
}, 60_000);

afterAll(async () => {
  process.env = { ...savedEnv };
  client?.destroy();
  await Promise.all([dynamo?.stop(), bridge?.stop(), receiver?.stop()]);
});

/** A fresh container of the events function with this environment on top of the base one. */
async function container(env: Record<string, string> = {}): Promise<Handler> {
  vi.resetModules();
  process.env = { ...savedEnv, ...baseEnv, ...env };
  return (await import('../functions/events.js')).handler as unknown as Handler;
}

const detailIds = (entries: PutEventsEntry[], accountId: string) =>
  entries.map((entry) => JSON.parse(entry.Detail ?? '{}') as AccountEvent).filter((event) => event.accountId === accountId).map((event) => event.id);
const ids = (events: AccountEvent[]) => events.map((event) => event.id);
const outboxOf = async (accountId: string) => (await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: `outbox#${accountId}` } }, ConsistentRead: true }))).Item;

describe('the events function on a stream batch', () => {
  it('delivers each ringing account\'s events oldest first to the bus and the webhook, each account once, and retries nothing', async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const [eventsOfA, eventsOfB] = [someEvents(a, 3), someEvents(b, 2)];
    await appendToOutbox(client, TABLE, eventsOfA.slice(0, 2));
    await appendToOutbox(client, TABLE, eventsOfB);
    await appendToOutbox(client, TABLE, eventsOfA.slice(2));
    const handler = await container({ PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'crm', url: receiver.url, secrets: [SECRET] }]) });
    const before = bridge.requests.length;

    // A's outbox written, then B's, then A's again: A is delivered once, with all three.
    expect(await handler(outboxStreamEvent([a, b, [a, 'MODIFY']]), lambdaContext())).toEqual({ batchItemFailures: [] });

    const published = bridge.requests.slice(before).flatMap((request) => request.entries);
    expect(detailIds(published, a)).toEqual(ids(eventsOfA));
    expect(detailIds(published, b)).toEqual(ids(eventsOfB));
    // A first: the accounts in the order of their first record.
    expect(published.map((entry) => (JSON.parse(entry.Detail!) as AccountEvent).accountId)).toEqual([a, a, a, b, b]);
    expect(published[0]).toMatchObject({ EventBusName: BUS, Source: 'passlane', DetailType: 'password.changed' });
    // Signed per Standard Webhooks (the receiver verified each), in the same order.
    expect(receiver.refused).toEqual([]);
    expect(receiver.received.filter((event) => event.accountId === a).map((event) => event.id)).toEqual(ids(eventsOfA));
    expect(await outboxOf(a)).toBeUndefined();
    expect(await outboxOf(b)).toBeUndefined();
  });

  it('reports a refused account\'s first record (its events stay, in order), delivers the others, and the retry from there delivers it', async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const [eventsOfA, eventsOfB] = [someEvents(a, 2), someEvents(b, 2)];
    await appendToOutbox(client, TABLE, eventsOfA);
    await appendToOutbox(client, TABLE, eventsOfB);
    bridge.behave({ kind: 'rejectEntries', code: 'InternalFailure', when: (entry) => entry.Detail?.includes(a) === true });
    const handler = await container();
    const batch = outboxStreamEvent([b, a, [a, 'MODIFY']]);
    try {
      // Time for the deliveries (the reserve and more) but not for a second round: the answer comes after one.
      const result = await handler(batch, lambdaContext(5_500));
      expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[1]!.dynamodb!.SequenceNumber }] });
    } finally {
      bridge.behave({ kind: 'accept' });
    }
    expect(detailIds(bridge.accepted, b)).toEqual(ids(eventsOfB));
    expect(detailIds(bridge.accepted, a)).toEqual([]);
    const kept = await outboxOf(a);
    expect(kept?.events?.L?.map((item) => item.M?.id?.S)).toEqual(ids(eventsOfA));

    // Lambda retries from the reported record on: A's records again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await handler({ Records: batch.Records.slice(1) }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(detailIds(bridge.accepted, a)).toEqual(ids(eventsOfA));
    expect(await outboxOf(a)).toBeUndefined();
  });

  it('tries a refused account again within the invocation while its time allows, with a pause', async () => {
    const a = crypto.randomUUID();
    const eventsOfA = someEvents(a, 2);
    await appendToOutbox(client, TABLE, eventsOfA);
    // The first call refused, the next ones taken.
    bridge.behave({ kind: 'rejectEntries', code: 'ThrottlingException', when: (entry) => entry.Detail?.includes(a) === true, times: 1 });
    const handler = await container();
    const before = bridge.requests.length;
    const started = Date.now();
    expect(await handler(outboxStreamEvent([a]), lambdaContext(60_000))).toEqual({ batchItemFailures: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(bridge.requests.length - before).toBe(3); // the refusal, then both events
    expect(detailIds(bridge.accepted, a)).toEqual(ids(eventsOfA));
  });

  it('fails the invocation when neither a bus nor a webhook is configured, and leaves the outbox as it was', async () => {
    const a = crypto.randomUUID();
    const eventsOfA = someEvents(a, 1);
    await appendToOutbox(client, TABLE, eventsOfA);
    const handler = await container({ PASSLANE_EVENT_BUS: '' });
    await expect(handler(outboxStreamEvent([a]), lambdaContext())).rejects.toThrow(/PASSLANE_EVENT_BUS and PASSLANE_WEBHOOKS are both unset/);
    expect((await outboxOf(a))?.events?.L).toHaveLength(1);
  });

  it('answers a batch of records of nothing (an outbox already delivered) with nothing to retry', async () => {
    const handler = await container();
    expect(await handler(outboxStreamEvent([crypto.randomUUID(), [crypto.randomUUID(), 'MODIFY']]), lambdaContext())).toEqual({ batchItemFailures: [] });
  });
});

describe('the stream trigger against the delivery\'s retries', () => {
  it('retries a record for longer than the delivery\'s default retries last, so a destination down for hours is caught up with', () => {
    const trigger = PASSLANE_FUNCTIONS.find((fn) => fn.name === 'events')!.tableStream!;
    // The longest the delivery waits between its attempts at one event, before dead-lettering it.
    let waits = 0;
    for (let attempt = 1; attempt < DEFAULT_EVENT_DELIVERY.maxAttempts; attempt++) waits += retryDelayMs(attempt, DEFAULT_EVENT_DELIVERY, () => 0.999_999);
    expect(trigger.maximumRecordAgeSeconds * 1000).toBeGreaterThan(waits);
    expect(trigger.maximumRetryAttempts).toBe(-1);
    expect(trigger.startingPosition).toBe('TRIM_HORIZON');
  });
});

describe('the batch, account by account', () => {
  it('takes each account once, in the order of its first record, and skips keys that are not an outbox\'s', () => {
    // (a removal is the end of a delivery: skipped without a word; the filter cannot tell it apart)
    const records = [streamRecord('outbox#c', 'REMOVE'), streamRecord('outbox#a'), streamRecord('user#someone@example.test'), streamRecord('outbox#b'), streamRecord('outbox#a', 'MODIFY'), streamRecord('outbox#')];
    const warnings: string[] = [];
    expect(accountsOfRecords(records, (message) => warnings.push(message))).toEqual([
      { accountId: 'a', sequenceNumber: records[1]!.dynamodb!.SequenceNumber },
      { accountId: 'b', sequenceNumber: records[3]!.dynamodb!.SequenceNumber },
    ]);
    expect(warnings).toHaveLength(2);
  });

  /** A delivery that answers from a script per account, and a clock the handler's pauses move. */
  function scripted(script: Record<string, Array<StreamDeliveryOutcome | Error>>, remainingMs: number) {
    let clock = 0;
    const calls: string[] = [];
    const pauses: number[] = [];
    const deliver = async (accountId: string): Promise<StreamDeliveryOutcome> => {
      calls.push(accountId);
      const next = script[accountId]!.shift() ?? 'delivered';
      if (next instanceof Error) throw next;
      return next;
    };
    const options = {
      firstPauseMs: 1_000,
      maxPauseMs: 4_000,
      reserveMs: 5_000,
      sleep: async (ms: number) => {
        pauses.push(ms);
        clock += ms;
      },
    };
    const quiet = { info: () => {}, warn: () => {} };
    const run = (event: DynamoDBStreamEvent) => deliverStreamBatch(deliver, options, quiet)(event, { getRemainingTimeInMillis: () => remainingMs - clock });
    return { run, calls, pauses };
  }

  it('keeps trying the accounts not delivered, pausing longer each round, until its time is short; those are reported', async () => {
    const { run, calls, pauses } = scripted({ a: ['failed', 'waiting', 'waiting', 'waiting', 'waiting'], b: ['leased', 'delivered'] }, 15_000);
    const batch = outboxStreamEvent(['a', 'b']);
    expect(await run(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]!.dynamodb!.SequenceNumber }] });
    // 15 s: pauses of 1, 2 and 4 s fit before the reserve (5 s); a fourth round would not.
    expect(pauses).toEqual([1_000, 2_000, 4_000]);
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'a', 'a']);
  });

  it('counts a delivery that throws (the table unreachable) as not delivered, for that account only', async () => {
    const { run } = scripted({ a: [new Error('storage down')], b: ['delivered'] }, 5_500);
    const batch = outboxStreamEvent(['a', 'b']);
    expect(await run(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]!.dynamodb!.SequenceNumber }] });
  });

  it('starts no delivery its time left could not see through: the accounts not started are reported too', async () => {
    let clock = 0;
    const calls: string[] = [];
    // Each delivery takes 3 s of the invocation's 10 s; 5 s are kept in reserve.
    const deliver = async (accountId: string): Promise<StreamDeliveryOutcome> => {
      calls.push(accountId);
      clock += 3_000;
      return 'delivered';
    };
    const options = { firstPauseMs: 1_000, maxPauseMs: 4_000, reserveMs: 5_000, sleep: async () => {} };
    const batch = outboxStreamEvent(['a', 'b', 'c', 'd']);
    const answer = await deliverStreamBatch(deliver, options, { info: () => {}, warn: () => {} })(batch, { getRemainingTimeInMillis: () => 10_000 - clock });
    // a (10 s left), b (7 s left, covers 5 + 3); not c (4 s left).
    expect(calls).toEqual(['a', 'b']);
    expect(answer).toEqual({ batchItemFailures: [batch.Records[2]!, batch.Records[3]!].map((record) => ({ itemIdentifier: record.dynamodb!.SequenceNumber })) });
  });

  it('answers nothing to retry once every account is delivered or had nothing, without pausing', async () => {
    const { run, pauses } = scripted({ a: ['nothing'], b: ['delivered'] }, 60_000);
    expect(await run(outboxStreamEvent(['a', 'b', 'a']))).toEqual({ batchItemFailures: [] });
    expect(pauses).toEqual([]);
  });
});
