/**
 * Every stored format the way a team moves its users: `passlane import` of an export (one
 * account per scheme), `passlane inventory` naming each scheme, then `npm start`'s server over
 * HTTP: a wrong password answers 401, the right one logs in and upgrades the record to argon2id,
 * and the upgraded record logs in again.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { onePerScheme } from './support/legacy-accounts.js';
import { storedFormOf } from './support/import-rows.js';
import { killServers, startServer } from './support/local-server-process.js';
import { runPasslane } from './support/run-process.js';

const TABLE = 'passlane-legacy-logins';
const fixtures = onePerScheme();
const emailOf = (i: number) => `legacy-${i}@example.test`;
/** Parses without keys, whatever the server sealed the upgraded records with. */
const reader = createPasswordHasher({ pepper: false });

let dynamo: RunningDynamoDb;
let client: DynamoDBClient;
let dataDir: string;

beforeAll(async () => {
  [dynamo, dataDir] = await Promise.all([startDynalite(), mkdtemp(join(tmpdir(), 'passlane-legacy-'))]);
  client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: dynamo.endpoint }));
  await ensureTable(client, TABLE);
});

afterEach(killServers);

afterAll(async () => {
  client?.destroy();
  await dynamo?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.body?.cancel();
  return response.status;
}

it('imports, inventories, logs in and upgrades one account of every scheme through npm start', async () => {
  const env = { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: TABLE, PASSLANE_PEPPER_KEYS: '' };
  const file = join(dataDir, 'export.jsonl');
  await writeFile(file, fixtures.map((fixture, i) => JSON.stringify({ email: emailOf(i), hash: fixture.hash })).join('\n'));
  const imported = await runPasslane(['import', file, '--json'], { env });
  expect(JSON.parse(imported.stdout)).toMatchObject({ imported: fixtures.length, rejected: 0 });

  const inventory = JSON.parse((await runPasslane(['inventory', '--json'], { env })).stdout) as {
    groups: Array<{ scheme: string; fastDigest: boolean; count: number }>;
    fastDigests: number;
  };
  const schemes = fixtures.map((fixture) => reader.describe(storedFormOf(fixture.hash)).scheme);
  expect(inventory.groups.map((group) => group.scheme).sort()).toEqual([...new Set(schemes)].sort());
  const fast = fixtures.filter((fixture) => reader.describe(storedFormOf(fixture.hash)).fastDigest === true);
  expect(inventory.fastDigests).toBe(fast.length);
  for (const group of inventory.groups) expect(group.fastDigest).toBe(fast.some((f) => reader.describe(storedFormOf(f.hash)).scheme === group.scheme));
  const table = (await runPasslane(['inventory'], { env })).stdout;
  if (fast.length > 0) expect(table).toContain(`WARNING: ${fast.length} accounts hold fast digests`);

  const server = await startServer(join(dataDir, 'server'), {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    PASSLANE_TABLE: TABLE,
    // Every login here comes from 127.0.0.1: lift the per-source limits for this one test.
    PASSLANE_LOGIN_LIMIT_PER_IP: '100000',
    PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '100',
  });
  const store = new AccountStore(client, TABLE);
  const outcomes = [];
  for (const [i, fixture] of fixtures.entries()) {
    const email = emailOf(i);
    const wrong = await post(`${server.url}/login`, { email, password: fixture.wrongPassword });
    const right = await post(`${server.url}/login`, { email, password: fixture.password });
    const upgraded = (await store.getUserByEmail(email))!.passwordHash;
    const again = await post(`${server.url}/login`, { email, password: fixture.password });
    outcomes.push({ id: fixture.id, wrong, right, upgradedTo: reader.describe(upgraded).scheme, again });
  }
  expect(outcomes).toEqual(fixtures.map((fixture) => ({ id: fixture.id, wrong: 401, right: 200, upgradedTo: 'argon2id', again: 200 })));
}, 240_000);
