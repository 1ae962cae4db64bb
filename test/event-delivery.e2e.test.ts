/**
 * Issue 37's test: account events reach a real HTTP receiver, which checks every request with the
 * `standardwebhooks` package, in order per account and none missing, although the delivering
 * process is killed (SIGKILL) while the receiver holds a request, and started again. The API is
 * `npm start`'s server in a child process (PASSLANE_EVENTS=on: it records, it does not deliver),
 * the deliverer `passlane events deliver --follow` in another, the table AWS's DynamoDB Local:
 * register, verify, change the address, change the password, delete. And the server delivering
 * itself when it has webhooks (the in-process deliverer), stopping cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { OutboxDeliveryStore } from '../packages/server/src/storage/outbox-delivery-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { killServers, startServer, type RunningServer } from './support/local-server-process.js';
import { newWebhookSecret, startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from './support/webhook-receiver.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECRET = newWebhookSecret();
const TABLE = 'passlane-events-e2e';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'another horse, another battery';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(method: string, url: string, body?: unknown, token?: string): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** The token of the last link to `page` the server printed (npm start prints each mail's link). */
function lastLink(server: RunningServer, page: string): string {
  const tokens = [...server.output().matchAll(new RegExp(`${page}#token=([^\\s"<&]+)`, 'g'))].map((match) => match[1]!);
  if (tokens.length === 0) throw new Error(`no ${page} link printed:\n${server.output()}`);
  return tokens.at(-1)!;
}

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
  const dataDirs: string[] = [];

  beforeAll(async () => {
    dynamo = await startDynamoDbLocal();
    client = newDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, TABLE);
  });
  afterAll(async () => {
    client?.destroy();
    await dynamo?.stop();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL');
    killServers();
    await receiver?.stop();
  });

  /** The API as `npm start` runs it, on DynamoDB Local, recording events. */
  async function api(extra: Record<string, string> = {}): Promise<RunningServer> {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-events-e2e-'));
    dataDirs.push(dataDir);
    return startServer(dataDir, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: TABLE,
      PASSLANE_EVENTS: 'on',
      PASSLANE_EMAIL_VERIFICATION: 'true',
      PASSLANE_MAIL_TRANSPORT: 'outbox',
      PASSLANE_APP_URL: '',
      PASSLANE_WEBHOOKS: '',
      PASSLANE_EVENT_BUS: '',
      ...extra,
    });
  }

  async function registerAndVerify(server: RunningServer, email: string): Promise<void> {
    expect((await send('POST', `${server.url}/register`, { email, password: PASSWORD })).status).toBe(202);
    expect((await send('POST', `${server.url}/email/verify`, { token: lastLink(server, '/verify-email') })).status).toBe(204);
  }

  async function login(server: RunningServer, email: string, password = PASSWORD): Promise<{ token: string; userId: string }> {
    const answer = await send('POST', `${server.url}/login`, { email, password });
    expect(answer.status).toBe(200);
    const token = answer.body.accessToken as string;
    return { token, userId: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string };
  }

  it('delivers every event, verified, in order per account, after a SIGKILL mid-delivery and a restart', async () => {
    // The receiver holds the second request until the test has killed the deliverer.
    let killed = false;
    let holding: () => void = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver = await startWebhookReceiver([SECRET], async (_, index) => {
      if (index === 1 && !killed) {
        holding();
        await released;
      }
      return 204;
    });
    const delivererEnv = {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      PASSLANE_TABLE: TABLE,
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      PASSLANE_EVENT_BUS: '',
      PASSLANE_EVENT_SWEEP_S: '1',
      PASSLANE_EVENT_LEASE_S: '2',
      PASSLANE_WEBHOOK_TIMEOUT_MS: '2000',
      PASSLANE_EVENT_RETRY_BASE_MS: '200',
      PASSLANE_EVENT_RETRY_MAX_S: '1',
    };
    const server = await api();
    const first = startDeliverer(delivererEnv);

    const ada = `ada-${crypto.randomUUID()}@example.com`;
    const adaNew = `ada-${crypto.randomUUID()}@example.org`;
    const bob = `bob-${crypto.randomUUID()}@example.com`;
    await registerAndVerify(server, ada);
    await registerAndVerify(server, bob);
    const adaId = (await login(server, ada)).userId;
    const bobSession = await login(server, bob);

    await until('the receiver to hold the second request', () => receiver!.received.length >= 2, 30_000, first.output);
    await held;
    first.child.kill('SIGKILL');
    killed = true;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    release();

    // The accounts go on while nobody delivers.
    const adaSession = await login(server, ada);
    expect((await send('POST', `${server.url}/email/change`, { newEmail: adaNew }, adaSession.token)).status).toBe(202);
    expect((await send('POST', `${server.url}/email/change/confirm`, { token: lastLink(server, '/confirm-email-change') })).status).toBe(204);
    const moved = await login(server, adaNew);
    expect((await send('POST', `${server.url}/password`, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, moved.token)).status).toBe(204);
    expect((await send('DELETE', `${server.url}/account`, undefined, moved.token)).status).toBe(204);
    expect((await send('POST', `${server.url}/password`, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bobSession.token)).status).toBe(204);
    const before = receiver.received.length;

    const second = startDeliverer(delivererEnv);
    const adaTypes = ['user.registered', 'email.verified', 'email.changed', 'password.changed', 'account.deleted'];
    const bobTypes = ['user.registered', 'email.verified', 'password.changed'];
    const arrivals = (accountId: string) => firstArrivals(receiver!.received, accountId).map((id) => receiver!.received.find((each) => each.id === id)!);
    await until('every event at the receiver', () => arrivals(adaId).length >= adaTypes.length && arrivals(bobSession.userId).length >= bobTypes.length, 30_000, second.output);

    expect(receiver.refused).toEqual([]);
    expect(arrivals(adaId).map((each) => each.type)).toEqual(adaTypes);
    expect(arrivals(bobSession.userId).map((each) => each.type)).toEqual(bobTypes);
    expect(arrivals(adaId).map((each) => each.data)).toEqual([
      { email: ada, method: 'password' },
      { email: ada },
      { from: ada, to: adaNew, by: 'owner' },
      { by: 'owner' },
      { by: 'owner' },
    ]);
    // Oldest first: each account's events arrive in the order of their times.
    for (const list of [arrivals(adaId), arrivals(bobSession.userId)]) expect(list.map((each) => each.time)).toEqual(list.map((each) => each.time).toSorted());
    // The restarted deliverer did the rest (the killed one stopped at the second).
    expect(receiver.received.length).toBeGreaterThan(before);
    // Nothing secret went out.
    expect(JSON.stringify(receiver.received)).not.toContain(PASSWORD);
    expect(JSON.stringify(receiver.received)).not.toContain(NEW_PASSWORD);

    // Nothing left behind: the outboxes go once delivered.
    const store = new OutboxDeliveryStore(client, TABLE);
    await until('the outboxes to be deleted', async () => (await store.read(adaId)) === undefined && (await store.read(bobSession.userId)) === undefined, 10_000, second.output);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(second.output()).toContain('stopped');
  });

  it('lets npm start with webhooks deliver itself, right after each write, and stop cleanly', async () => {
    receiver = await startWebhookReceiver([SECRET]);
    // Sweeps an hour apart (the first at start, before any account): what arrives came from each write's own nudge (afterAppend).
    const server = await api({
      PASSLANE_WEBHOOKS: JSON.stringify([{ name: 'receiver', url: receiver.url, secrets: [SECRET] }]),
      PASSLANE_EVENT_SWEEP_S: '3600',
    });
    expect(server.output()).toContain('account events: delivered to PASSLANE_WEBHOOKS');
    const email = `cy-${crypto.randomUUID()}@example.com`;
    await registerAndVerify(server, email);
    const { userId } = await login(server, email);
    await until('the events at the receiver', () => firstArrivals(receiver!.received, userId).length >= 2, 10_000, server.output);
    expect(receiver.refused).toEqual([]);
    expect(receiver.received.filter((each) => each.accountId === userId).map((each) => each.type)).toEqual(['user.registered', 'email.verified']);
    expect(await server.interrupt()).toBe(0);
  });
});
