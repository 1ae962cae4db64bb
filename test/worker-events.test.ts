/**
 * The Worker's delivery of account events: the bundle that deploys (build-worker.ts), in workerd
 * (Miniflare) against dynalite, its cron trigger's `scheduled` handler sweeping the pending
 * outboxes to a real receiver that verifies every request with `standardwebhooks`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker } from '../packages/server/src/runtimes/workers/build-worker.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TABLE = 'passlane-worker-events';
const SECRET = newWebhookSecret();

describe('the Worker’s scheduled sweep of account events', () => {
  let outdir: string;
  let dynamo: RunningDynamoDb;
  let receiver: WebhookReceiver;
  let miniflare: Miniflare;
  const logLines: string[] = [];

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'passlane-worker-events-'));
    const [bundle, server, wrangler] = await Promise.all([buildWorker({ outdir }), startDynalite(), readFile(new URL('../wrangler.toml', import.meta.url), 'utf8')]);
    dynamo = server;
    receiver = await startWebhookReceiver([SECRET]);
    // The deployed configuration has the trigger that runs `scheduled`.
    expect(wrangler).toMatch(/^\[triggers\]\ncrons = \["\* \* \* \* \*"\]$/m);
    miniflare = new Miniflare({
      modules: true,
      scriptPath: bundle.scriptPath,
      modulesRoot: outdir,
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
      compatibilityDate: /^compatibility_date = "([\d-]+)"/m.exec(wrangler)![1]!,
      bindings: {
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        AWS_REGION: 'local',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        PASSLANE_TABLE: TABLE,
        PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      },
      handleStructuredLogs: ({ message }: { message: string }) => void logLines.push(message),
    });
    await miniflare.ready;
  });
  afterAll(async () => {
    await miniflare?.dispose();
    await receiver?.stop();
    await dynamo?.stop();
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  it('delivers every pending outbox, in order per account, signed', async () => {
    const client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE, { maxWaitSeconds: 10 });
    const one = someEvents(`acct-${crypto.randomUUID()}`, 3);
    const two = someEvents(`acct-${crypto.randomUUID()}`, 2);
    await appendToOutbox(client, TABLE, one);
    await appendToOutbox(client, TABLE, two);

    // Miniflare's Fetcher runs the Worker's `scheduled` as the cron trigger would.
    const worker = (await miniflare.getWorker()) as unknown as { scheduled(options: { cron: string }): Promise<unknown> };
    await worker.scheduled({ cron: '* * * * *' });

    expect(receiver.refused).toEqual([]);
    expect(receiver.received.filter((each) => each.accountId === one[0]!.accountId)).toEqual(one);
    expect(receiver.received.filter((each) => each.accountId === two[0]!.accountId)).toEqual(two);
    const store = new OutboxDeliveryStore(client, TABLE);
    expect(await store.read(one[0]!.accountId)).toBeUndefined();
    expect((await store.sinkStatus(['webhook:receiver']))[0]).toMatchObject({ delivered: 5, failures: 0 });
    expect(logLines.join('\n')).toContain('events swept');
    client.destroy();
  });
});
