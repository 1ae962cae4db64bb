import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStorageConfig } from '../packages/server/src/config/storage-config.js';
import { createDynamoDbClient, dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { newLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import {
  AccountExistsError,
  HashChangedError,
  StorageUnavailableError,
} from '../packages/server/src/storage/errors.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { RateLimitStore } from '../packages/server/src/storage/rate-limit-store.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { dynamoDbServers, freePort, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { attachRecorder, type AwsRequest } from './support/iam/aws-call-recorder.js';

const uniqueEmail = (): string => `user-${randomUUID()}@example.test`;

describe.each(dynamoDbServers)('AccountStore on $name', ({ name, start }) => {
  let server: RunningDynamoDb;
  let client: DynamoDBClient;
  let store: AccountStore;
  let counters: RateLimitStore;
  const tableName = `passlane-test-${randomUUID()}`;

  beforeAll(async () => {
    server = await start();
    // A fresh client as the functions build it (not the per-container cache) so afterAll can destroy it.
    client = newLambdaDynamoDbClient({ endpoint: server.endpoint }, true);
    await ensureTable(client, tableName);
    store = new AccountStore(client, tableName);
    counters = new RateLimitStore(client, tableName);
  });

  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it('ensureTable is idempotent, also when run concurrently', async () => {
    await Promise.all([ensureTable(client, tableName), ensureTable(client, tableName)]);
    await ensureTable(client, tableName);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    // dynalite has no UpdateTimeToLive; ensureTable tolerates that (TTL is only housekeeping).
    const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl?.TimeToLiveStatus).toBe(name === 'dynalite' ? 'DISABLED' : 'ENABLED');
    if (name !== 'dynalite') expect(ttl?.AttributeName).toBe('expiresAt');
  });

  it('creates a user and reads it back consistently', async () => {
    const user = {
      email: uniqueEmail(),
      userId: randomUUID(),
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      createdAt: new Date('2025-01-02T03:04:05.678Z'),
    };
    await store.createUser(user);
    expect(await store.getUserByEmail(user.email)).toEqual(user);
    expect(await store.getUserByEmail(uniqueEmail())).toBeUndefined();
  });

  it('finds an account by userId through the index', async () => {
    const user = { email: uniqueEmail(), userId: randomUUID(), passwordHash: 'h', createdAt: new Date() };
    await store.createUser(user);
    expect(await store.getUserById(user.userId)).toEqual(user);
    expect(await store.getUserById(randomUUID())).toBeUndefined();
  });

  it('lets exactly one of 20 concurrent registrations of one email win', async () => {
    const email = uniqueEmail();
    const attempts = Array.from({ length: 20 }, (_, i) => ({
      email,
      userId: randomUUID(),
      passwordHash: `hash-${i}`,
      createdAt: new Date(),
    }));
    const results = await Promise.allSettled(attempts.map((user) => store.createUser(user)));

    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [attempts[i]] : []));
    expect(winners).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') {
        expect(result.reason).toBeInstanceOf(AccountExistsError);
        expect(result.reason.code).toBe('ERR_STORAGE_ACCOUNT_EXISTS');
      }
    }
    expect((await store.getUserByEmail(email))?.userId).toBe(winners[0]?.userId);
  });

  it('tells its own landed retry from a duplicate by the item the failed condition returns', async () => {
    const recorded = newLambdaDynamoDbClient({ endpoint: server.endpoint }, true);
    const calls: AwsRequest[] = [];
    attachRecorder(recorded, { partitionKey: 'pk', indexPartitionKeys: {} }, () => ({ record: (call) => calls.push(call) }));
    const recordedStore = new AccountStore(recorded, tableName);
    try {
      const user = { email: uniqueEmail(), userId: randomUUID(), passwordHash: 'h1', createdAt: new Date() };
      await recordedStore.createUser(user);
      // What the SDK's retry of a call whose first attempt landed sends: the same item again. Success.
      await recordedStore.createUser(user);
      await expect(recordedStore.createUser({ ...user, userId: randomUUID() })).rejects.toBeInstanceOf(AccountExistsError);
      await expect(recordedStore.createUser({ ...user, passwordHash: 'h2' })).rejects.toBeInstanceOf(AccountExistsError);
      // DynamoDB returns the stored item with the failed condition, so no read: the register role
      // has no GetItem. dynalite ignores ReturnValuesOnConditionCheckFailure; only there the store reads.
      const put = 'dynamodb:PutItem';
      const get = 'dynamodb:GetItem';
      expect(calls.map((call) => call.action)).toEqual(name === 'dynalite' ? [put, put, get, put, get, put, get] : [put, put, put, put]);
    } finally {
      recorded.destroy();
    }
  });

  it('replaces the hash only while the expected hash is still stored', async () => {
    const email = uniqueEmail();
    await store.createUser({ email, userId: randomUUID(), passwordHash: 'old', createdAt: new Date() });

    // A login read 'old' and wants to rehash it; meanwhile the user changes the password.
    const changedAt = new Date('2030-01-01T00:00:00.000Z');
    await store.replacePasswordHash({
      email,
      expectedHash: 'old',
      newHash: 'changed',
      reason: 'password-change',
      now: changedAt,
    });
    const staleRehash = store.replacePasswordHash({
      email,
      expectedHash: 'old',
      newHash: 'old-rehashed',
      reason: 'rehash',
    });
    await expect(staleRehash).rejects.toBeInstanceOf(HashChangedError);
    await expect(staleRehash).rejects.toMatchObject({ code: 'ERR_STORAGE_HASH_CHANGED' });

    const stored = await store.getUserByEmail(email);
    expect(stored?.passwordHash).toBe('changed');
    expect(stored?.passwordChangedAt).toEqual(changedAt);
  });

  it('a rehash keeps passwordChangedAt unset; a missing account is HashChangedError', async () => {
    const email = uniqueEmail();
    await store.createUser({ email, userId: randomUUID(), passwordHash: 'v1', createdAt: new Date() });
    await store.replacePasswordHash({ email, expectedHash: 'v1', newHash: 'v1-rehashed', reason: 'rehash' });
    const stored = await store.getUserByEmail(email);
    expect(stored?.passwordHash).toBe('v1-rehashed');
    expect(stored?.passwordChangedAt).toBeUndefined();

    await expect(
      store.replacePasswordHash({ email: uniqueEmail(), expectedHash: 'x', newHash: 'y', reason: 'rehash' }),
    ).rejects.toBeInstanceOf(HashChangedError);
  });

  it('lets exactly one of 10 concurrent replacements of the same hash win', async () => {
    const email = uniqueEmail();
    await store.createUser({ email, userId: randomUUID(), passwordHash: 'base', createdAt: new Date() });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.replacePasswordHash({ email, expectedHash: 'base', newHash: `new-${i}`, reason: 'password-change' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(HashChangedError);
  });

  it('counts 30 concurrent rate-limit hits atomically and allows exactly `limit`', async () => {
    const key = `login#${uniqueEmail()}`;
    const now = new Date('2030-06-01T12:00:10.000Z'); // 10 s into a 60 s window
    const hits = await Promise.all(
      Array.from({ length: 30 }, () => counters.hit({ key, windowSeconds: 60, limit: 7, now })),
    );

    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(hits.filter((h) => h.allowed)).toHaveLength(7);
    for (const hit of hits) {
      expect(hit.allowed).toBe(hit.count <= 7);
      expect(hit.retryAfterSeconds).toBe(hit.allowed ? 0 : 50);
    }

    // The next window starts from zero.
    const next = await counters.hit({ key, windowSeconds: 60, limit: 7, now: new Date(now.getTime() + 60_000) });
    expect(next).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
  });
});

// The functions' client (item requests by the short path) and the SDK's own, as the CLI jobs use it.
const clientKinds = [
  { kind: 'the functions’ client', create: (endpoint: string) => newLambdaDynamoDbClient({ endpoint }, true) },
  { kind: 'the SDK client', create: (endpoint: string) => new DynamoDBClient(dynamoDbClientConfig({ endpoint })) },
];

describe.each(clientKinds)('storage outage, through $kind', ({ create }) => {
  const operations = (store: AccountStore, counters: RateLimitStore): Array<Promise<unknown>> => [
    counters.hit({ key: 'k', windowSeconds: 60, limit: 5 }),
    store.getUserByEmail('a@example.test'),
    store.createUser({ email: 'a@example.test', userId: 'u', passwordHash: 'h', createdAt: new Date() }),
    store.replacePasswordHash({ email: 'a@example.test', expectedHash: 'h', newHash: 'h2', reason: 'rehash' }),
  ];

  it('maps a refused connection to StorageUnavailableError in under 3 s', async () => {
    const port = await freePort(); // free = nothing listens
    const client = create(`http://127.0.0.1:${port}`);
    const store = new AccountStore(client, 'passlane-users');
    const started = performance.now();
    const results = await Promise.allSettled(operations(store, new RateLimitStore(client, 'passlane-users')));
    const elapsed = performance.now() - started;
    client.destroy();

    for (const result of results) {
      expect(result.status).toBe('rejected');
      if (result.status === 'rejected') {
        expect(result.reason).toBeInstanceOf(StorageUnavailableError);
        expect(result.reason.code).toBe('ERR_STORAGE_UNAVAILABLE');
        expect(result.reason.cause).toBeDefined();
        expect(result.reason.message).not.toContain('a@example.test');
      }
    }
    expect(elapsed).toBeLessThan(3_000);
  });

  it('gives up on a server that accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
    const { port } = blackHole.address() as { port: number };
    const client = create(`http://127.0.0.1:${port}`);
    const store = new AccountStore(client, 'passlane-users');
    try {
      const started = performance.now();
      await expect(store.getUserByEmail('a@example.test')).rejects.toBeInstanceOf(StorageUnavailableError);
      // 3 attempts × 1 s request timeout + backoff.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      client.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
    }
  });
});

describe('createDynamoDbClient', () => {
  it('returns one cached client per configuration', () => {
    const connection = { endpoint: 'http://127.0.0.1:1' };
    expect(createDynamoDbClient(connection)).toBe(createDynamoDbClient({ ...connection }));
    expect(createDynamoDbClient(connection)).not.toBe(createDynamoDbClient({ endpoint: 'http://127.0.0.1:2' }));
  });

  it('uses dummy credentials and region "local" for a local endpoint unless configured', () => {
    expect(dynamoDbClientConfig({ endpoint: 'http://localhost:8000' })).toMatchObject({
      endpoint: 'http://localhost:8000',
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      retryMode: 'standard',
      maxAttempts: 3,
    });
    const configured = dynamoDbClientConfig(
      readStorageConfig({
        DYNAMODB_ENDPOINT: 'http://localhost:8000',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }),
    );
    expect(configured).toMatchObject({ region: 'eu-west-1', credentials: { accessKeyId: 'AKID' } });
    const aws = dynamoDbClientConfig(readStorageConfig({ AWS_REGION: 'us-east-1' }));
    expect(aws.endpoint).toBeUndefined();
    expect(aws.credentials).toBeUndefined();
  });
});
