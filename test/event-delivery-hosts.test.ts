/**
 * Bun and Deno deliver account events in process (runtimes/fetch-server.ts with
 * host-event-delivery.ts), as `npm start` does (test/event-delivery.e2e.test.ts): a registration
 * through the host reaches a receiver verifying with `standardwebhooks` at once, not at a sweep
 * (they are an hour apart here). Deno runs the built dist/ (npm run build first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startHost, type RunningHost } from './support/api-hosts.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = newWebhookSecret();

describe.each(['bun', 'deno'] as const)('%s delivers account events in process', (name) => {
  let dynamo: RunningDynamoDb;
  let receiver: WebhookReceiver;
  let host: RunningHost | undefined;
  const table = `events-${name}-${Date.now()}`;

  beforeAll(async () => {
    [dynamo, receiver] = await Promise.all([startDynalite(), startWebhookReceiver([SECRET])]);
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table, { maxWaitSeconds: 10 });
    host = await startHost(name, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('ES256')),
      PASSLANE_FINGERPRINT_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
      PASSLANE_MFA_KEYS: `events:${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`,
      PASSLANE_MAIL_TRANSPORT: 'none',
      PASSLANE_EVENTS: 'on',
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      PASSLANE_EVENT_SWEEP_S: '3600',
    });
  }, 90_000);
  afterAll(async () => {
    await host?.stop();
    await receiver?.stop();
    await dynamo?.stop();
  });

  it('sends a registration’s event right after the write, signed', async () => {
    const email = `${name}-${crypto.randomUUID()}@example.com`;
    const registered = await host!.send({ method: 'POST', path: '/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery staple' }) });
    expect(registered.statusCode).toBe(201);
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.refused).toEqual([]);
    expect(receiver.received).toEqual([expect.objectContaining({ type: 'user.registered', data: { email, method: 'password' } })]);
    const store = new OutboxDeliveryStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), table);
    expect((await store.sinkStatus(['webhook:receiver']))[0]).toMatchObject({ delivered: 1, failures: 0 });
  });
});
