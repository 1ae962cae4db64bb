/**
 * Vercel Edge's delivery of account events: the bundle `npm run build:vercel` makes, in Vercel's
 * EdgeVM (edge-runtime) against dynalite, to a real receiver that verifies every request with
 * `standardwebhooks`: after the answer of a request that recorded events (the request context's
 * waitUntil), and at Vercel Cron's call of the sweep route, which wants CRON_SECRET.
 * Node's AsyncLocalStorage stands in for the one Vercel's runtime offers as a global.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EdgeRuntime } from 'edge-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { bundleForEdge, type WorkerBundle } from '../packages/server/src/runtimes/workers/build-worker.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { startEdgeVm } from './support/edge-vm.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TABLE = 'passlane-vercel-events';
const SECRET = newWebhookSecret();
const CRON_SECRET = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('hex');
const CRON_PATH = 'http://passlane.vercel.test/api/cron/passlane-events';
const randomKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');

type Answer = Response & { waitUntil(): Promise<unknown> };

describe('Vercel Edge’s delivery of account events', () => {
  let outdir: string;
  let bundle: WorkerBundle;
  let dynamo: RunningDynamoDb;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  let vm: EdgeRuntime;
  const client = () => newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

  /** The bundle in a fresh isolate with `variables` as its process.env; its waitUntil is the EdgeVM fetch event's. */
  const startVercel = (variables: Record<string, string>, errors: string[] = []) =>
    startEdgeVm(bundle, 'entry(request, { waitUntil: (promise) => event.waitUntil(promise) })', {
      process: { env: variables },
      AsyncLocalStorage,
      console: { ...console, log: () => undefined, error: (line: string) => void errors.push(line) },
    });

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'passlane-vercel-events-'));
    const entry = fileURLToPath(new URL('../packages/server/src/runtimes/vercel-edge/vercel-edge.ts', import.meta.url));
    const [built, server, jwk] = await Promise.all([bundleForEdge({ entry, outdir, conditions: ['edge-light', 'worker', 'browser'] }), startDynalite(), generateSigningKey('EdDSA')]);
    bundle = built;
    dynamo = server;
    receiver = await startWebhookReceiver([SECRET]);
    const setup = client();
    await ensureTable(setup, TABLE, { maxWaitSeconds: 10 });
    setup.destroy();
    env = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: TABLE,
      PASSLANE_EVENTS: 'on',
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(jwk),
      PASSLANE_PEPPER_KEYS: `test-1:${randomKey()}`,
      PASSLANE_FINGERPRINT_KEY: randomKey(),
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      CRON_SECRET,
    };
    vm = await startVercel(env);
  });
  afterAll(async () => {
    await receiver?.stop();
    await dynamo?.stop();
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  const sweep = (headers: Record<string, string> = {}) => vm.dispatchFetch(CRON_PATH, { headers }) as Promise<Answer>;

  it('delivers a request’s events within its waitUntil, after the answer', async () => {
    const response = (await vm.dispatchFetch('http://passlane.vercel.test/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-real-ip': '203.0.113.9' },
      body: JSON.stringify({ email: `vercel-${crypto.randomUUID()}@example.com`, password: 'correct horse battery staple' }),
    })) as Answer;
    expect(response.status).toBe(201);
    const { userId } = (await response.json()) as { userId: string };
    await response.waitUntil();
    expect(receiver.received.filter((each) => each.accountId === userId).map((each) => each.type)).toEqual(['user.registered']);
    expect(receiver.refused).toEqual([]);
    const store = client();
    expect(await new OutboxDeliveryStore(store, TABLE).read(userId)).toBeUndefined();
    store.destroy();
  });

  it('sweeps at Vercel Cron’s call with the secret, and refuses any other', async () => {
    const store = client();
    const events = someEvents(`acct-${crypto.randomUUID()}`, 3);
    await appendToOutbox(store, TABLE, events);
    const ofAccount = () => receiver.received.filter((each) => each.accountId === events[0]!.accountId);

    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${CRON_SECRET.slice(0, -1)}x` }, { authorization: CRON_SECRET }, { authorization: `Basic ${CRON_SECRET}` }]) {
      const refused = await sweep(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    }
    expect(ofAccount()).toEqual([]);

    const answer = await sweep({ authorization: `Bearer ${CRON_SECRET}` });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ swept: true, complete: true, outcomes: { delivered: 1 } });
    expect(ofAccount()).toEqual(events);
    expect(await new OutboxDeliveryStore(store, TABLE).read(events[0]!.accountId)).toBeUndefined();
    store.destroy();
  });

  it('is the route the example vercel.json schedules', async () => {
    const example = JSON.parse(await readFile(new URL('../examples/vercel/vercel.json', import.meta.url), 'utf8')) as { crons: Array<{ path: string; schedule: string }> };
    expect(example.crons).toEqual([{ path: new URL(CRON_PATH).pathname, schedule: '* * * * *' }]);
  });

  it('refuses every sweep while CRON_SECRET is unset', async () => {
    const { CRON_SECRET: _unset, ...withoutSecret } = env;
    const errors: string[] = [];
    const unset = await startVercel(withoutSecret, errors);
    for (const authorization of ['Bearer ', 'Bearer undefined']) {
      const answer = (await unset.dispatchFetch(CRON_PATH, { headers: { authorization } })) as Answer;
      expect(answer.status).toBe(500);
    }
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('CRON_SECRET must be set');
  });
});
