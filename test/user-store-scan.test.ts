import { randomUUID } from 'node:crypto';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { JobCursorChangedError } from '../packages/server/src/storage/errors.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { JobCursorStore } from '../packages/server/src/storage/job-cursor-store.js';
import { RateLimitStore } from '../packages/server/src/storage/rate-limit-store.js';
import { AccountStore, type ScannedAccount } from '../packages/server/src/storage/account-store.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';

/** Every account of every segment, following lastKey, or resuming after a given item's pk. */
async function scanAll(store: AccountStore, totalSegments: number, limit: number): Promise<ScannedAccount[]> {
  const all: ScannedAccount[] = [];
  for (let segment = 0; segment < totalSegments; segment++) {
    let startKey: string | undefined;
    do {
      const page = await store.scanAccounts({ segment, totalSegments, limit, startKey });
      all.push(...page.items);
      startKey = page.lastKey;
    } while (startKey !== undefined);
  }
  return all;
}

describe.each(dynamoDbServers)('AccountStore bulk operations on $name', ({ start }) => {
  let server: RunningDynamoDb;
  let client: DynamoDBClient;
  let store: AccountStore;
  let cursors: JobCursorStore;
  const tableName = `passlane-scan-${randomUUID()}`;
  const emails = Array.from({ length: 57 }, (_, i) => `scan-${i}-${randomUUID()}@example.test`);

  beforeAll(async () => {
    server = await start();
    client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
    await ensureTable(client, tableName);
    store = new AccountStore(client, tableName);
    cursors = new JobCursorStore(client, tableName);
    for (const email of emails) {
      await store.createUser({ email, userId: randomUUID(), passwordHash: `hash-of-${email}`, createdAt: new Date() });
    }
    // Other kinds of items the account scan must skip.
    for (let i = 0; i < 5; i++) await new RateLimitStore(client, tableName).hit({ key: `ip#192.0.2.${i}`, windowSeconds: 60, limit: 10 });
    await cursors.put({ job: 'scan-test', cursor: 'c0', expected: undefined });
  });

  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it('scans every account exactly once across segments and pages, and nothing else', async () => {
    for (const totalSegments of [1, 4]) {
      const items = await scanAll(store, totalSegments, 7);
      expect(items.map((item) => item.email).sort()).toEqual([...emails].sort());
      for (const item of items) {
        expect(item.pk).toBe(`user#${item.email}`);
        expect(item.passwordHash).toBe(`hash-of-${item.email}`);
        expect(item.userId).toMatch(/^[0-9a-f-]{36}$/);
      }
    }
  });

  it('resumes a segment after the pk of any item it returned', async () => {
    const first = await store.scanAccounts({ segment: 1, totalSegments: 3, limit: 50 });
    const whole: string[] = first.items.map((item) => item.pk);
    for (let startKey = first.lastKey; startKey !== undefined; ) {
      const page = await store.scanAccounts({ segment: 1, totalSegments: 3, limit: 50, startKey });
      whole.push(...page.items.map((item) => item.pk));
      startKey = page.lastKey;
    }
    expect(whole.length).toBeGreaterThan(3);
    // Stopping after the third item and resuming from its pk gives exactly the rest.
    const rest: string[] = [];
    for (let startKey: string | undefined = whole[2]; startKey !== undefined; ) {
      const page = await store.scanAccounts({ segment: 1, totalSegments: 3, limit: 5, startKey });
      rest.push(...page.items.map((item) => item.pk));
      startKey = page.lastKey;
    }
    expect(rest).toEqual(whole.slice(3));
  });

  it('returns corrupt account items with their fields missing rather than failing the page', async () => {
    const corruptTable = `passlane-scan-${randomUUID()}`;
    await ensureTable(client, corruptTable);
    await client.send(new PutItemCommand({ TableName: corruptTable, Item: { pk: { S: 'user#broken@example.test' }, userId: { S: 'u-1' } } }));
    const page = await new AccountStore(client, corruptTable).scanAccounts({ segment: 0, totalSegments: 1 });
    expect(page.items).toEqual([{ pk: 'user#broken@example.test', email: undefined, userId: 'u-1', passwordHash: undefined }]);
  });

  it('refuses segment numbers outside 0..totalSegments-1', async () => {
    await expect(store.scanAccounts({ segment: 2, totalSegments: 2 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.scanAccounts({ segment: -1, totalSegments: 2 })).rejects.toBeInstanceOf(RangeError);
  });

  it('stores a job cursor only over the value the caller last saw', async () => {
    const job = `job-${randomUUID()}`;
    expect(await cursors.get(job)).toBeUndefined();
    await cursors.put({ job, cursor: 'a', expected: undefined });
    await expect(cursors.put({ job, cursor: 'x', expected: undefined })).rejects.toBeInstanceOf(JobCursorChangedError);
    await cursors.put({ job, cursor: 'b', expected: 'a' });
    // A second run still holding "a" loses, and the stored cursor stays where the first run put it.
    const lost = await cursors.put({ job, cursor: 'c', expected: 'a' }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(JobCursorChangedError);
    expect((lost as JobCursorChangedError).code).toBe('ERR_STORAGE_CURSOR_CHANGED');
    expect(await cursors.get(job)).toBe('b');
    // Repeating the write that already landed (an SDK retry) is success.
    await cursors.put({ job, cursor: 'b', expected: 'a' });
  });

  it('keeps job items out of account lookups', async () => {
    expect(await store.getUserByEmail('scan-test')).toBeUndefined();
    expect(await cursors.get('scan-test')).toBe('c0');
  });
});
