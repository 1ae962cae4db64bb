/**
 * Delivery of account events from the outbox (features/events, storage/outbox-delivery-store.ts)
 * on both DynamoDB servers, to a real HTTP receiver that checks every request with the
 * `standardwebhooks` package: order per account, one deliverer at a time, backoff, dead letters
 * after the last attempt, the counts, an append racing the pop and the delete, secret rotation,
 * the sweep of pending outboxes.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { EventDeliveryDependencies, EventSweepDependencies } from '../packages/server/src/features/events/dependencies.js';
import { deliverAccountEvents } from '../packages/server/src/features/events/deliver-account-events.js';
import { eventDeliveryStatus } from '../packages/server/src/features/events/event-delivery-status.js';
import { EventDeliveryError, type EventSink } from '../packages/server/src/features/events/event-sink.js';
import { createEventBridgeSink, type EventBusEntry } from '../packages/server/src/features/events/eventbridge-sink.js';
import { retryDelayMs } from '../packages/server/src/features/events/retry-delay.js';
import { DEFAULT_EVENT_DELIVERY } from '../packages/server/src/features/events/settings.js';
import { sweepPendingEvents } from '../packages/server/src/features/events/sweep-pending-events.js';
import { createWebhookSink } from '../packages/server/src/features/events/webhook-sink.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { appendToOutbox, event, someEvents } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type Answer, type WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = newWebhookSecret();
const quiet = { info: () => {}, warn: () => {} };

describe.each(dynamoDbServers)('event delivery on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  let client: DynamoDBClient;
  let store: OutboxDeliveryStore;
  const table = `events-${Date.now()}`;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    server = await start();
    client = newDynamoDbClient({ endpoint: server.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, table);
    store = new OutboxDeliveryStore(client, table);
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
  });

  async function receiver(answer?: Answer, secrets = [SECRET]): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(secrets, answer);
    receivers.push(started);
    return started;
  }

  function webhook(url: string, name = 'crm', secrets = [SECRET]): EventSink {
    return createWebhookSink({ name, url, secrets }, { timeoutMs: 2_000, now: () => new Date() });
  }

  function deps(sinks: EventSink[], overrides: Partial<EventDeliveryDependencies['settings']> = {}, now = () => new Date(), on = store): EventSweepDependencies {
    return { outbox: on, pending: on, sinks, settings: { ...DEFAULT_EVENT_DELIVERY, ...overrides }, random: Math.random, log: quiet, now };
  }

  const accountId = () => `acct-${crypto.randomUUID()}`;

  it('delivers an account’s events oldest first, signed, and deletes the emptied outbox', async () => {
    const hooks = await receiver();
    const id = accountId();
    const events = [event('user.registered', id, { email: 'ada@example.com', method: 'password' }), event('email.verified', id, { email: 'ada@example.com' }), event('account.deleted', id, { by: 'owner' })];
    await appendToOutbox(client, table, events);
    const sink = webhook(hooks.url, `order-${id.slice(5, 13)}`);

    expect(await deliverAccountEvents(deps([sink]), id)).toBe('delivered');
    expect(hooks.refused).toEqual([]);
    expect(hooks.received).toEqual(events);
    expect(hooks.headers.map((headers) => headers['webhook-id'])).toEqual(events.map((each) => each.id));
    expect(await store.read(id)).toBeUndefined();
    expect(await deliverAccountEvents(deps([sink]), id)).toBe('nothing');
    expect((await store.sinkStatus([sink.name]))[0]).toMatchObject({ delivered: 3, failures: 0, deadLettered: 0 });
  });

  it('lets one deliverer at a time work an account: concurrent runs deliver each event once, in order', async () => {
    // Slow answers keep the first run inside its lease while the others try to take it.
    const hooks = await receiver(async () => (await new Promise((resolve) => setTimeout(resolve, 30)), 204));
    const id = accountId();
    const events = someEvents(id, 6);
    await appendToOutbox(client, table, events);
    const sink = webhook(hooks.url, `lease-${id.slice(5, 13)}`);

    const outcomes = await Promise.all(Array.from({ length: 4 }, () => deliverAccountEvents(deps([sink]), id)));
    expect(outcomes.filter((outcome) => outcome === 'delivered')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== 'delivered').every((outcome) => outcome === 'leased' || outcome === 'nothing')).toBe(true);
    expect(hooks.received.map((each) => each.id)).toEqual(events.map((each) => each.id));
  });

  it('takes over a lease that ran out (a deliverer that died) and starts again at the head', async () => {
    const hooks = await receiver();
    const id = accountId();
    const events = someEvents(id, 2);
    await appendToOutbox(client, table, events);
    const clock = movableClock();
    // A deliverer that died holding the lease.
    expect((await store.claim(id, 'dead-one', clock.now().getTime(), 5_000)).kind).toBe('claimed');
    const sink = webhook(hooks.url);
    expect(await deliverAccountEvents(deps([sink], {}, clock.now), id)).toBe('leased');
    clock.advance(6);
    expect(await deliverAccountEvents(deps([sink], {}, clock.now), id)).toBe('delivered');
    expect(hooks.received.map((each) => each.id)).toEqual(events.map((each) => each.id));
  });

  it('backs off after a refusal (doubling, with jitter) and keeps the later events behind the head', async () => {
    let failing = true;
    const hooks = await receiver(() => (failing ? 503 : 204));
    const id = accountId();
    const events = someEvents(id, 2);
    await appendToOutbox(client, table, events);
    const clock = movableClock();
    const sink = webhook(hooks.url, `backoff-${id.slice(5, 13)}`);
    const settings = { retryBaseMs: 4_000, retryMaxMs: 60_000 };

    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('failed');
    let outbox = (await store.read(id))!;
    expect(outbox.headAttempts).toBe(1);
    expect(outbox.nextAttemptAt - clock.now().getTime()).toBeGreaterThanOrEqual(2_000);
    expect(outbox.nextAttemptAt - clock.now().getTime()).toBeLessThanOrEqual(4_000);
    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('waiting');

    clock.advance(4);
    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('failed');
    outbox = (await store.read(id))!;
    expect(outbox.headAttempts).toBe(2);
    expect(outbox.nextAttemptAt - clock.now().getTime()).toBeGreaterThanOrEqual(4_000);
    expect(outbox.nextAttemptAt - clock.now().getTime()).toBeLessThanOrEqual(8_000);
    // Only the head was tried, twice: the second event waits behind it.
    expect(hooks.received.map((each) => each.id)).toEqual([events[0]!.id, events[0]!.id]);

    failing = false;
    clock.advance(8);
    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('delivered');
    expect(hooks.received.map((each) => each.id).slice(2)).toEqual(events.map((each) => each.id));
    expect((await store.sinkStatus([sink.name]))[0]).toMatchObject({ delivered: 2, failures: 2, deadLettered: 0, lastError: 'HTTP 503' });
  });

  it('refuses to run with no sink rather than drop the events', async () => {
    const id = accountId();
    await appendToOutbox(client, table, someEvents(id, 1));
    await expect(deliverAccountEvents(deps([]), id)).rejects.toThrow(RangeError);
    expect((await store.read(id))!.events).toHaveLength(1);
    const hooks = await receiver();
    expect(await deliverAccountEvents(deps([webhook(hooks.url)]), id)).toBe('delivered');
  });

  it('computes the retry delay as the base doubled per attempt, capped, in its upper half', () => {
    const settings = { retryBaseMs: 1_000, retryMaxMs: 10_000 };
    expect([1, 2, 3, 4, 5].map((attempts) => retryDelayMs(attempts, settings, () => 0))).toEqual([500, 1_000, 2_000, 4_000, 5_000]);
    expect([1, 2, 3, 4, 5].map((attempts) => retryDelayMs(attempts, settings, () => 0.999_999))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000]);
  });

  it('dead-letters an event a sink refused on every attempt, counts it, and moves on to the next', async () => {
    const id = accountId();
    const events = someEvents(id, 3);
    const poisoned = events[1]!.id;
    const hooks = await receiver((received) => (received.id === poisoned ? 500 : 204));
    await appendToOutbox(client, table, events);
    const clock = movableClock();
    const sink = webhook(hooks.url, `dead-${id.slice(5, 13)}`);
    const settings = { maxAttempts: 3, retryBaseMs: 1_000, retryMaxMs: 1_000 };

    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('failed');
    clock.advance(2);
    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('failed');
    clock.advance(2);
    expect(await deliverAccountEvents(deps([sink], settings, clock.now), id)).toBe('delivered');

    expect(hooks.received.map((each) => each.id)).toEqual([events[0]!.id, poisoned, poisoned, poisoned, events[2]!.id]);
    expect((await store.sinkStatus([sink.name]))[0]).toMatchObject({ delivered: 2, failures: 3, deadLettered: 1, lastError: 'HTTP 500' });
    const letter = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: `outbox-dead#${sink.name}#${poisoned}` } }, ConsistentRead: true }));
    expect(letter.Item?.event?.M?.id?.S).toBe(poisoned);
    expect(letter.Item?.attempts?.N).toBe('3');
    expect(letter.Item?.error?.S).toBe('HTTP 500');
    expect(Number(letter.Item?.expiresAt?.N)).toBeGreaterThan(clock.now().getTime() / 1000);
  });

  it('gives a sink that failed the head the retry alone: a sink that has it does not get it again', async () => {
    const good = await receiver();
    let failing = true;
    const flaky = await receiver(() => (failing ? 500 : 204));
    const id = accountId();
    const events = someEvents(id, 2);
    await appendToOutbox(client, table, events);
    const clock = movableClock();
    const sinks = [webhook(good.url, `good-${id.slice(5, 13)}`), webhook(flaky.url, `flaky-${id.slice(5, 13)}`)];

    expect(await deliverAccountEvents(deps(sinks, { retryBaseMs: 1_000 }, clock.now), id)).toBe('failed');
    expect((await store.read(id))!.headDone).toEqual([sinks[0]!.name]);
    failing = false;
    clock.advance(2);
    expect(await deliverAccountEvents(deps(sinks, { retryBaseMs: 1_000 }, clock.now), id)).toBe('delivered');
    expect(good.received.map((each) => each.id)).toEqual(events.map((each) => each.id));
    expect(flaky.received.map((each) => each.id)).toEqual([events[0]!.id, ...events.map((each) => each.id)]);
  });

  it('loses no append that races the pop or the delete of the emptied outbox', async () => {
    const hooks = await receiver();
    const id = accountId();
    const first = someEvents(id, 1);
    const duringDelivery = someEvents(id, 1);
    const beforeDelete = someEvents(id, 1);
    await appendToOutbox(client, table, first);
    const sink = webhook(hooks.url);
    // An append while the head is with the receiver (after the claim read the outbox, before the pop)...
    const appendingSink: EventSink = {
      name: sink.name,
      async deliver(delivered) {
        await sink.deliver(delivered);
        if (delivered.id === first[0]!.id) await appendToOutbox(client, table, duringDelivery);
      },
    };
    // ... and one between the last pop and the delete.
    let raced = false;
    const racingStore: EventDeliveryDependencies['outbox'] = Object.assign(Object.create(store) as OutboxDeliveryStore, {
      deleteIfEmpty: async (account: string, owner: string) => {
        if (!raced) {
          raced = true;
          await appendToOutbox(client, table, beforeDelete);
        }
        return store.deleteIfEmpty(account, owner);
      },
    });
    expect(await deliverAccountEvents({ ...deps([appendingSink]), outbox: racingStore }, id)).toBe('delivered');
    expect(hooks.received.map((each) => each.id)).toEqual([...first, ...duringDelivery, ...beforeDelete].map((each) => each.id));
    expect(await store.read(id)).toBeUndefined();
  });

  it('signs with every configured secret: a receiver that knows either one verifies (rotation)', async () => {
    const current = newWebhookSecret();
    const retiring = newWebhookSecret();
    const knowsCurrent = await receiver(undefined, [current]);
    const knowsRetiring = await receiver(undefined, [retiring]);
    const knowsNeither = await receiver(undefined, [newWebhookSecret()]);
    const id = accountId();
    const events = someEvents(id, 1);
    for (const hooks of [knowsCurrent, knowsRetiring]) {
      await appendToOutbox(client, table, events);
      expect(await deliverAccountEvents(deps([webhook(hooks.url, 'rotation', [current, retiring])]), id)).toBe('delivered');
      expect(hooks.refused).toEqual([]);
      expect(hooks.received).toEqual(events);
    }
    expect(knowsCurrent.headers[0]!['webhook-signature']!.split(' ')).toHaveLength(2);
    await appendToOutbox(client, table, events);
    expect(await deliverAccountEvents(deps([webhook(knowsNeither.url, 'rotation', [current, retiring])], { retryBaseMs: 60_000 }), id)).toBe('failed');
    expect(knowsNeither.refused).toHaveLength(1);
    expect((await store.read(id))!.headAttempts).toBe(1);
    // The signature is the one the specification gives, over "<id>.<timestamp>.<body>".
    const headers = knowsCurrent.headers[0]!;
    const signed = new Webhook(current).sign(headers['webhook-id']!, new Date(Number(headers['webhook-timestamp']) * 1000), JSON.stringify(events[0]));
    expect(headers['webhook-signature']!.split(' ')[0]).toBe(signed);
  });

  it('counts a webhook that does not answer in time, or redirects, as a failure naming why (never the URL)', async () => {
    const slow = await receiver(async () => (await new Promise((resolve) => setTimeout(resolve, 1_000)), 204));
    const redirecting = await receiver(() => 307);
    const slowSink = createWebhookSink({ name: 'slow', url: slow.url, secrets: [SECRET] }, { timeoutMs: 200, now: () => new Date() });
    const [one] = someEvents(accountId(), 1);
    await expect(slowSink.deliver(one!)).rejects.toMatchObject({ code: 'ERR_EVENT_DELIVERY', detail: 'no answer within 200 ms' });
    await expect(webhook(redirecting.url).deliver(one!)).rejects.toMatchObject({ detail: 'HTTP 307 (a redirect: not followed)' });
    const closed = webhook('http://127.0.0.1:9/hooks?token=secret-in-url');
    const failure = (await closed.deliver(one!).catch((error: unknown) => error)) as EventDeliveryError;
    expect(failure.detail).toMatch(/^no connection/);
    expect(failure.message).not.toContain('secret-in-url');
  });

  it('publishes to EventBridge through the client interface, one entry per event, a refused entry a failure', async () => {
    const sent: EventBusEntry[] = [];
    let refuse = false;
    const bus = createEventBridgeSink(
      {
        putEvents: async (entries) => {
          sent.push(...entries);
          return refuse ? { FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }] } : { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] };
        },
      },
      { bus: 'accounts', source: 'passlane' },
    );
    const [one] = someEvents(accountId(), 1);
    await bus.deliver(one!);
    expect(bus.name).toBe('eventbridge:accounts');
    expect(sent).toEqual([{ EventBusName: 'accounts', Source: 'passlane', DetailType: 'password.changed', Detail: JSON.stringify(one), Time: new Date(one!.time) }]);
    refuse = true;
    await expect(bus.deliver(one!)).rejects.toMatchObject({ detail: 'PutEvents refused the entry: InternalFailure' });
  });

  it('sweeps every pending outbox (the hosts with no stream) and reports the counts and what is pending', async () => {
    // A table of its own: what is pending is exactly what this test appended.
    const own = `${table}-sweep`;
    await ensureTable(client, own);
    const sweepStore = new OutboxDeliveryStore(client, own);
    const hooks = await receiver();
    const ids = [accountId(), accountId(), accountId()];
    for (const id of ids) await appendToOutbox(client, own, someEvents(id, 2));
    // Not an outbox: never swept.
    await appendToOutbox(client, own, someEvents('x', 1)).then(() => sweepStore.countDelivered('webhook:other'));
    const sink = webhook(hooks.url, 'sweep');
    const before = await eventDeliveryStatus({ status: sweepStore, sinkNames: [sink.name] });
    expect(before.pendingOutboxes).toBe(4);

    const result = await sweepPendingEvents(deps([sink], {}, () => new Date(), sweepStore));
    expect(result).toEqual({ accounts: 4, outcomes: { delivered: 4, nothing: 0, leased: 0, waiting: 0, failed: 0 }, errors: 0 });
    for (const id of ids) expect(hooks.received.filter((each) => each.accountId === id)).toHaveLength(2);
    // Small pages: the Scan's cursor carries the sweep over every page.
    for (const id of ids) await appendToOutbox(client, own, someEvents(id, 1));
    const paged: EventSweepDependencies = { ...deps([sink], {}, () => new Date(), sweepStore), pending: { scanPending: (options) => sweepStore.scanPending({ ...options, limit: 2 }) } };
    expect((await sweepPendingEvents(paged)).outcomes.delivered).toBe(3);
    for (const id of ids) expect(hooks.received.filter((each) => each.accountId === id)).toHaveLength(3);

    const after = await eventDeliveryStatus({ status: sweepStore, sinkNames: [sink.name, 'webhook:never-used'] });
    expect(after.pendingOutboxes).toBe(0);
    expect(after.sinks).toEqual([
      { sink: sink.name, delivered: 10, failures: 0, deadLettered: 0 },
      { sink: 'webhook:never-used', delivered: 0, failures: 0, deadLettered: 0 },
    ]);
  });
});
