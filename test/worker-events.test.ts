/**
 * The Worker's delivery of account events: the bundle that deploys (build-worker.ts), in workerd
 * (Miniflare) against dynalite, to a real receiver that verifies every request with
 * `standardwebhooks`: right after the request that recorded them (waitUntil), and by its cron
 * trigger's `scheduled` handler sweeping the pending outboxes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, WORKER_COMPATIBILITY_FLAGS } from '../packages/server/src/runtimes/workers/build-worker.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TABLE = 'passlane-worker-events';
const SECRET = newWebhookSecret();
const randomKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');

describe('the Worker’s delivery of account events', () => {
  let outdir: string;
  let dynamo: RunningDynamoDb;
  let receiver: WebhookReceiver;
  let miniflare: Miniflare;
  const logLines: string[] = [];

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'passlane-worker-events-'));
    const [bundle, server, wrangler, jwk] = await Promise.all([
      buildWorker({ outdir }),
      startDynalite(),
      readFile(new URL('../wrangler.toml', import.meta.url), 'utf8'),
      generateSigningKey('EdDSA'),
    ]);
    dynamo = server;
    receiver = await startWebhookReceiver([SECRET]);
    // The deployed configuration has the trigger that runs `scheduled`, and the flag of the AsyncLocalStorage that keeps requests' appends apart.
    expect(wrangler).toMatch(/^\[triggers\]\ncrons = \["\* \* \* \* \*"\]$/m);
    expect(wrangler).toContain(`compatibility_flags = ${JSON.stringify(WORKER_COMPATIBILITY_FLAGS)}`);
    const client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE, { maxWaitSeconds: 10 });
    client.destroy();
    miniflare = new Miniflare({
      modules: true,
      scriptPath: bundle.scriptPath,
      modulesRoot: outdir,
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
      compatibilityDate: /^compatibility_date = "([\d-]+)"/m.exec(wrangler)![1]!,
      compatibilityFlags: WORKER_COMPATIBILITY_FLAGS,
      bindings: {
        PASSLANE_EVENTS: 'on',
        PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(jwk),
        PASSLANE_PEPPER_KEYS: `test-1:${randomKey()}`,
        PASSLANE_FINGERPRINT_KEY: randomKey(),
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

  it('delivers a request’s events right after its answer, before any cron run', async () => {
    const response = await miniflare.dispatchFetch('http://worker.test/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': '203.0.113.9' },
      body: JSON.stringify({ email: `edge-${crypto.randomUUID()}@example.com`, password: 'correct horse battery staple' }),
    });
    expect(response.status).toBe(201);
    const { userId } = (await response.json()) as { userId: string };
    // Nothing here runs `scheduled`: only the request's waitUntil can deliver.
    await expect.poll(() => receiver.received.filter((each) => each.accountId === userId).map((each) => each.type), { timeout: 10_000, interval: 50 }).toEqual(['user.registered']);
    expect(receiver.refused).toEqual([]);
    const client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await expect.poll(async () => new OutboxDeliveryStore(client, TABLE).read(userId), { timeout: 5_000, interval: 50 }).toBeUndefined();
    client.destroy();
  });

  it('serves no sweep over HTTP (Vercel’s cron route is Vercel’s only)', async () => {
    const response = await miniflare.dispatchFetch('http://worker.test/api/cron/passlane-events', { headers: { authorization: 'Bearer anything-at-all-here' } });
    expect(response.status).toBe(404);
  });

  it('delivers every pending outbox, in order per account, signed', async () => {
    const client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
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
    expect((await store.sinkStatus(['webhook:receiver']))[0]).toMatchObject({ delivered: 6, failures: 0 }); // and the registration's
    expect(logLines.join('\n')).toContain('events swept');
    client.destroy();
  });
});
