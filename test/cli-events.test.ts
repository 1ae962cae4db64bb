/**
 * `passlane events status` and `passlane events deliver` (cli/commands/events.ts), run in process
 * against dynalite and a receiver verifying with `standardwebhooks`: the counts and the last error
 * per sink, the pending outboxes, one sweep; bad settings and arguments exit 2 without a secret.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEventsCommand } from '../packages/server/src/cli/commands/events.js';
import { runInventoryCommand } from '../packages/server/src/cli/commands/inventory.js';
import type { CommandIo } from '../packages/server/src/cli/commands/command-io.js';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { appendToOutbox, someEvents } from './support/outbox-append.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const TABLE = 'passlane-cli-events';
const SECRET = newWebhookSecret();

describe('passlane events', () => {
  let dynamo: RunningDynamoDb;
  let receiver: WebhookReceiver;
  let failing = true;
  let env: Record<string, string>;

  beforeAll(async () => {
    dynamo = await startDynalite();
    receiver = await startWebhookReceiver([SECRET], () => (failing ? 503 : 204));
    const client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE);
    await appendToOutbox(client, TABLE, someEvents('acct-one', 2));
    await appendToOutbox(client, TABLE, someEvents('acct-two', 1));
    client.destroy();
    env = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: TABLE,
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'crm', url: receiver.url, secrets: [SECRET] }]),
      PASSLANE_EVENT_RETRY_BASE_MS: '10',
      PASSLANE_EVENT_RETRY_MAX_S: '1',
    };
  });
  afterAll(async () => {
    await receiver?.stop();
    await dynamo?.stop();
  });

  async function events(args: string[], extra: Record<string, string> = {}, run = runEventsCommand): Promise<{ code: number; stdout: string; stderr: string }> {
    const [stdout, stderr] = [new PassThrough(), new PassThrough()];
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const io: CommandIo = { stdout, stderr, env: { ...env, ...extra } };
    const code = await run(args, io);
    return { code, stdout: out, stderr: err };
  }

  it('sweeps once, and shows each sink’s counts, its last error and the pending outboxes', async () => {
    const failed = await events(['deliver']);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toBe('2 pending outboxes: 0 delivered, 2 failed (retried later), 0 waiting for their retry, 0 held by another deliverer, 0 already done, 0 errors\n');
    expect(failed.stderr).toContain('"message":"event delivery failed"');
    expect(failed.stderr).not.toContain(receiver.url);

    const status = await events(['status']);
    expect(status.code).toBe(0);
    const lines = status.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.trim().split(/\s{2,}/))).toEqual([
      ['sink', 'delivered', 'failures', 'dead letters', 'last error'],
      ['webhook:crm', '0', '2', '0', expect.stringMatching(/^HTTP 503 \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/)],
      ['Pending outboxes: 2 accounts with events not yet delivered'],
    ]);

    failing = false;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await events(['deliver'])).stdout).toContain('2 pending outboxes: 2 delivered');
    const json = await events(['status', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ sinks: [{ sink: 'webhook:crm', delivered: 3, failures: 2, deadLettered: 0, lastError: 'HTTP 503', lastErrorAt: expect.any(String) }], pendingOutboxes: 0 });
    expect(receiver.refused).toEqual([]);

    // passlane inventory shows the same counts.
    const inventory = await events(['--json'], {}, runInventoryCommand);
    expect(inventory.code).toBe(0);
    expect(JSON.parse(inventory.stdout).events).toEqual([{ sink: 'webhook:crm', delivered: 3, failures: 2, deadLettered: 0, lastError: 'HTTP 503', lastErrorAt: expect.any(String) }]);
    const table = await events([], {}, runInventoryCommand);
    expect(table.stdout).toMatch(/^Account events to webhook:crm: 3 delivered, 2 failed attempts, 0 dead-lettered; last error HTTP 503 at \S+ \(pending: passlane events status\)$/m);
    expect(JSON.parse((await events(['--json'], { PASSLANE_WEBHOOKS: '' }, runInventoryCommand)).stdout).events).toBeUndefined();
  });

  it('refuses bad arguments and settings with exit 2, quoting no secret', async () => {
    expect((await events(['sweep'])).code).toBe(2);
    expect((await events(['status', '--follow'])).code).toBe(2);
    const bad = await events(['status'], { PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'crm', url: receiver.url, secrets: ['whsec_dG9vc2hvcnQ='] }]) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PASSLANE_WEBHOOKS webhook "crm" has a secret');
    expect(bad.stderr).not.toContain('dG9vc2hvcnQ');
    const none = await events(['deliver'], { PASSLANE_WEBHOOKS: '' });
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('no webhook to deliver to') });
    const bus = await events(['deliver'], { PASSLANE_EVENT_BUS: 'accounts' });
    expect(bus).toMatchObject({ code: 2, stderr: expect.stringContaining('PASSLANE_EVENT_BUS is published to by the events function on AWS only') });
  });
});
