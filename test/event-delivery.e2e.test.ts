/**
 * Issue 37's test: account events reach a real HTTP receiver, which checks every request with the
 * `standardwebhooks` package, in order per account and none missing, although the delivering
 * process is killed (SIGKILL) while the receiver holds a request, and started again. The
 * deliverer is `passlane events deliver --follow` in a child process; the table is AWS's
 * DynamoDB Local.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AccountEvent } from '../packages/server/src/events/account-event.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { appendToOutbox, event } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from './support/webhook-receiver.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECRET = newWebhookSecret();
const TABLE = 'passlane-events-e2e';

interface Deliverer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

/** `passlane events deliver --follow` from the sources, as an operator runs it beside a server that does not deliver. */
function startDeliverer(env: Record<string, string>): Deliverer {
  const child = spawn(process.execPath, ['--conditions=passlane-source', '--import', 'tsx', 'packages/server/src/cli/passlane.ts', 'events', 'deliver', '--follow'], {
    cwd: repoRoot,
    env: { ...process.env, NODE_NO_WARNINGS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => output, exited };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, diagnostics: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${diagnostics()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each event's first arrival, in arrival order (at least once: repeats after the kill are allowed). */
function firstArrivals(received: ReceivedEvent[], accountId: string): string[] {
  const seen = new Set<string>();
  return received.filter((each) => each.accountId === accountId && !seen.has(each.id) && seen.add(each.id)).map((each) => each.id);
}

describe('account events survive the delivering process being killed (DynamoDB Local)', () => {
  let dynamo: RunningDynamoDb;
  let client: DynamoDBClient;
  let receiver: WebhookReceiver | undefined;

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
    client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE);
  });
  afterAll(async () => {
    client?.destroy();
    await dynamo?.stop();
  });
  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL');
    await receiver?.stop();
  });

  it('delivers every event, verified, in order per account, after a SIGKILL mid-delivery and a restart', async () => {
    // The receiver holds the second request until the test has killed the deliverer.
    let holding: (() => void) | undefined;
    let killed = false;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver = await startWebhookReceiver([SECRET], async (_, index) => {
      if (index === 1 && !killed) {
        holding!();
        await released;
        return 204;
      }
      return 204;
    });
    const env = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: TABLE,
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      PASSLANE_EVENT_SWEEP_S: '1',
      PASSLANE_EVENT_LEASE_S: '2',
      PASSLANE_WEBHOOK_TIMEOUT_MS: '2000',
      PASSLANE_EVENT_RETRY_BASE_MS: '200',
      PASSLANE_EVENT_RETRY_MAX_S: '1',
    };

    // What an account's life writes to its outbox, in the order the writes commit.
    const ada = `acct-${crypto.randomUUID()}`;
    const bob = `acct-${crypto.randomUUID()}`;
    const adaEvents: AccountEvent[] = [
      event('user.registered', ada, { email: 'ada@example.com', method: 'password' }),
      event('email.verified', ada, { email: 'ada@example.com' }),
      event('email.changed', ada, { from: 'ada@example.com', to: 'ada@example.org', by: 'owner' }),
    ];
    const bobEvents: AccountEvent[] = [event('user.registered', bob, { email: 'bob@example.com', method: 'password' }), event('email.verified', bob, { email: 'bob@example.com' })];
    for (const each of adaEvents) await appendToOutbox(client, TABLE, [each]);
    for (const each of bobEvents) await appendToOutbox(client, TABLE, [each]);

    const first = startDeliverer(env);
    await until('the receiver to hold the second request', () => receiver!.received.length >= 2, 30_000, first.output);
    await held;
    first.child.kill('SIGKILL');
    killed = true;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    release();

    // The account goes on while nobody delivers.
    const later: AccountEvent[] = [event('password.changed', ada, { by: 'owner' }), event('account.deleted', ada, { by: 'owner' })];
    for (const each of later) await appendToOutbox(client, TABLE, [each]);
    const moreBob = [event('password.changed', bob, { by: 'owner' })];
    await appendToOutbox(client, TABLE, moreBob);
    const before = receiver.received.length;

    const second = startDeliverer(env);
    const expectedAda = [...adaEvents, ...later].map((each) => each.id);
    const expectedBob = [...bobEvents, ...moreBob].map((each) => each.id);
    await until(
      'every event at the receiver',
      () => firstArrivals(receiver!.received, ada).length === expectedAda.length && firstArrivals(receiver!.received, bob).length === expectedBob.length,
      30_000,
      second.output,
    );
    expect(receiver.refused).toEqual([]);
    expect(firstArrivals(receiver.received, ada)).toEqual(expectedAda);
    expect(firstArrivals(receiver.received, bob)).toEqual(expectedBob);
    // Each arrival is the event as recorded, and the restart began where the killed one stopped.
    for (const each of [...adaEvents, ...later, ...bobEvents, ...moreBob]) expect(receiver.received.find((arrived) => arrived.id === each.id)).toEqual(each);
    expect(receiver.received.length).toBeGreaterThan(before);

    // Nothing left behind: the outboxes are gone once delivered.
    const store = new OutboxDeliveryStore(client, TABLE);
    await until('the outboxes to be deleted', async () => (await store.read(ada)) === undefined && (await store.read(bob)) === undefined, 10_000, second.output);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(second.output()).toContain('stopped');
  });
});
