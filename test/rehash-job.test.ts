import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher, type PasswordHasher } from '../packages/passlane/src/index.js';
import { currentPepperKeyId } from '../packages/server/src/features/rehash/current-pepper-key.js';
import { decodeCursor } from '../packages/server/src/features/rehash/job-cursor.js';
import { createRehashHandler } from '../packages/server/src/features/rehash/rehash-handler.js';
import { addRehashCounts, emptyRehashCounts } from '../packages/server/src/features/rehash/rehash-counts.js';
import { REHASH_JOB_NAME, runRehashJob, type RehashJobDependencies } from '../packages/server/src/features/rehash/run-rehash-job.js';
import { takeInventory } from '../packages/server/src/features/rehash/take-inventory.js';
import { JobCursorChangedError, StorageUnavailableError } from '../packages/server/src/storage/errors.js';
import type { AccountStore } from '../packages/server/src/storage/account-store.js';
import type { JobCursorStore } from '../packages/server/src/storage/job-cursor-store.js';
import { changePasswordWithToken, createAuthFixture } from './support/auth-fixture.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { legacyFixtures } from './support/fixtures.js';
import { goodRows, storedFormOf } from './support/import-rows.js';
import { loginSession } from './support/login-results.js';

// Cheap argon2 for the new and wrapped hashes (1 MiB, one pass): what is tested here is the job,
// not OWASP's cost, and the suite must stay fast on 2 cores. Legacy hashes keep their own cost.
const WEAK = { argon2: { memoryKiB: 1024, passes: 1 }, allowWeakParameters: true } as const;
const weakHasher = createPasswordHasher({ pepper: false, ...WEAK });
/** A record wrapped by this job: the legacy string, then argon2id at the test policy, tag last. */
const isWrappedByJob = (stored: string) => /^\$wrapped\$.*\$argon2id\$v=19\$m=1024,t=1,p=1\$[^$]+\$[^$]+$/.test(stored);
const PLAIN_PREFIX = '$argon2id$v=19$m=1024,t=1,p=1$';
const NEW_PASSWORD = 'a new password, changed during the job';

const key = (byte: number) => new Uint8Array(32).fill(byte);
const cheap = legacyFixtures.hashes.filter((f) => /^(bcrypt-2[ab]-c4-ascii|django-pbkdf2_sha256-10k-long|passlib-pbkdf2_sha256-umlaut)$/.test(f.id));

type Store = RehashJobDependencies['users'] & Pick<AccountStore, 'createUser' | 'getUserByEmail'>;

/** Every account's stored hash, by email. */
async function allHashes(users: Store, emails: string[]): Promise<Map<string, string>> {
  const entries = await Promise.all(emails.map(async (email) => [email, (await users.getUserByEmail(email))!.passwordHash] as const));
  return new Map(entries);
}

async function seed(users: Store, accounts: Array<{ email: string; hash: string; userId?: string }>): Promise<void> {
  for (let i = 0; i < accounts.length; i += 25) {
    await Promise.all(
      accounts.slice(i, i + 25).map((a) => users.createUser({ email: a.email, userId: a.userId ?? crypto.randomUUID(), passwordHash: a.hash, createdAt: new Date() })),
    );
  }
}

/** A store whose successful hash writes are counted per email (and that can fail on the n-th write). */
function countingStore(inner: Store, options: { failOnWrite?: number } = {}) {
  const writes = new Map<string, number>();
  let attempts = 0;
  const users: Store = {
    scanAccounts: (input) => inner.scanAccounts(input),
    createUser: (user) => inner.createUser(user),
    getUserByEmail: (email) => inner.getUserByEmail(email),
    async replacePasswordHash(input) {
      if (++attempts === options.failOnWrite) throw new StorageUnavailableError('replacePasswordHash', new Error('simulated outage'));
      await inner.replacePasswordHash(input);
      writes.set(input.email, (writes.get(input.email) ?? 0) + 1);
    },
  };
  return { users, writes };
}

describe.each(dynamoDbServers)('rehash job on $name', ({ start }) => {
  let server: RunningDynamoDb;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('wraps every legacy record; each still logs in with its password and is then plain argon2id', async () => {
    const { deps, users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    // One account per fixture: every scheme, every edge case (NFD, emoji, 72-byte bcrypt, empty).
    const accounts = legacyFixtures.hashes.map((fixture, i) => ({ email: `fixture-${i}-${crypto.randomUUID()}@example.com`, fixture, hash: storedFormOf(fixture.hash) }));
    const broken = [
      { email: `garbage-${crypto.randomUUID()}@example.com`, hash: 'not a hash at all', userId: 'user-garbage' },
      { email: `hostile-${crypto.randomUUID()}@example.com`, hash: legacyFixtures.hostile[0]!.hash, userId: 'user-hostile' },
    ];
    await seed(users, [...accounts, ...broken]);

    const before = await takeInventory({ hasher: weakHasher, users });
    expect(before.byStatus).toEqual({ up_to_date: 0, awaiting_login: 0, to_wrap: accounts.length, to_rotate: 0, unparseable: 2 });

    const result = await runRehashJob({ hasher: weakHasher, users, cursors }, { segments: 3, pageSize: 7 });
    expect(result.done).toBe(true);
    expect(result.counts).toMatchObject({ scanned: accounts.length + 2, wrapped: accounts.length, unparseable: 2, failed: 0, skipped_changed: 0 });
    // Reported by userId and code, never rewritten.
    expect(result.problems.sort((a, b) => a.userId!.localeCompare(b.userId!))).toEqual([
      { userId: 'user-garbage', outcome: 'unparseable', code: 'ERR_HASH_UNSUPPORTED' },
      { userId: 'user-hostile', outcome: 'unparseable', code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' },
    ]);
    for (const b of broken) expect((await users.getUserByEmail(b.email))!.passwordHash).toBe(b.hash);

    const wrapped = await allHashes(users, accounts.map((a) => a.email));
    for (const { email, hash } of accounts) {
      expect(isWrappedByJob(wrapped.get(email)!)).toBe(true);
      // The crackable legacy digest is gone.
      expect(wrapped.get(email)).not.toContain(hash.slice(-16));
    }
    const inventory = await takeInventory({ hasher: weakHasher, users });
    expect(inventory.byStatus).toMatchObject({ awaiting_login: accounts.length, to_wrap: 0, unparseable: 2 });
    expect(inventory.wrapped).toBe(accounts.length);
    expect(inventory.groups.every((g) => g.parameters === 'v=19,m=1024,t=1,p=1')).toBe(true);

    // A second pass finds nothing to do: wrapped records wait for their login.
    const again = await runRehashJob({ hasher: weakHasher, users, cursors });
    expect(again.counts).toMatchObject({ wrapped: 0, already_wrapped: accounts.length });

    // A wrapped bcrypt record read only the first 72 bytes of a longer password: replacing it with
    // argon2id of the typed password would drop every other password that verified (the real one
    // among them), so it stays wrapped (memory-hard already), and still logs in.
    const keepsWrapper = (fixture: (typeof accounts)[number]['fixture']) =>
      weakHasher.describe(fixture.hash).scheme.endsWith('bcrypt') && new TextEncoder().encode(fixture.password).length > 72;
    for (const { email, fixture } of accounts) {
      await loginSession(deps, { email, password: fixture.password });
      const stored = (await users.getUserByEmail(email))!.passwordHash;
      if (keepsWrapper(fixture)) {
        expect(isWrappedByJob(stored)).toBe(true);
        await loginSession(deps, { email, password: fixture.password });
        continue;
      }
      // Every other one, short legacy passwords included: the login upgrade skips today's minimum length.
      expect(stored).toMatch(new RegExp(`^${PLAIN_PREFIX.replaceAll('$', '\\$')}`));
      expect(weakHasher.needsRehash(stored)).toBe(false);
    }
    const kept = accounts.filter(({ fixture }) => keepsWrapper(fixture)).length;
    expect(kept).toBeGreaterThan(0);
    const after = await takeInventory({ hasher: weakHasher, users });
    expect(after.byStatus).toMatchObject({ up_to_date: accounts.length - kept, awaiting_login: kept, unparseable: 2 });
    dispose();
  }, 120_000);

  it('loses no login upgrade or password change that runs during the job', async () => {
    const { deps, users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    const accounts = Array.from({ length: 60 }, (_, i) => ({
      email: `race-${i}-${crypto.randomUUID()}@example.com`,
      userId: `race-user-${i}`,
      fixture: cheap[i % cheap.length]!,
    }));
    // The raced account's hash is unique, so the hook below fires for it alone.
    const raced = accounts[40]!;
    raced.fixture = legacyFixtures.hashes.find((f) => f.id === 'passlib-pbkdf2_sha256-nfd')!;
    await seed(users, accounts.map((a) => ({ ...a, hash: a.fixture.hash })));
    const loggingIn = accounts.slice(0, 15);
    const changing = accounts.slice(15, 25);

    const change = async (account: (typeof accounts)[number]) => {
      const { accessToken } = await loginSession(deps, { email: account.email, password: account.fixture.password });
      await changePasswordWithToken(deps, { accessToken, currentPassword: account.fixture.password, newPassword: NEW_PASSWORD });
    };
    // Deterministic interleaving for one account: its password changes while the job wraps it.
    const racingHasher: PasswordHasher = {
      ...weakHasher,
      wrap: async (stored) => {
        if (stored === raced.fixture.hash && !changedRaced) {
          changedRaced = true;
          await change(raced);
        }
        return weakHasher.wrap(stored);
      },
    };
    let changedRaced = false;
    // Slow the job down (pages of 4, 40 writes/s) so the logins really overlap it.
    const job = runRehashJob({ hasher: racingHasher, users, cursors }, { segments: 2, pageSize: 4, maxWritesPerSecond: 40 });
    await Promise.all([
      ...loggingIn.map((a) => loginSession(deps, { email: a.email, password: a.fixture.password })),
      ...changing.map(change),
      job,
    ]);
    const { counts } = await job;
    expect(counts.skipped_changed).toBeGreaterThanOrEqual(1);
    expect(counts.wrapped + counts.skipped_changed + counts.up_to_date).toBe(accounts.length);

    const stored = await allHashes(users, accounts.map((a) => a.email));
    for (const a of accounts) {
      const hash = stored.get(a.email)!;
      if (changing.includes(a) || a === raced) {
        expect((await weakHasher.verify(hash, NEW_PASSWORD)).ok).toBe(true);
        expect((await weakHasher.verify(hash, a.fixture.password)).ok).toBe(false);
      } else {
        expect((await weakHasher.verify(hash, a.fixture.password)).ok).toBe(true);
      }
      if (!loggingIn.includes(a) && !changing.includes(a) && a !== raced) expect(isWrappedByJob(hash)).toBe(true);
    }
    dispose();
  }, 60_000);

  it('wraps the fast digests before anything else, and counts every account once over the pass', async () => {
    const { users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    const isFast = (hash: string) => weakHasher.describe(hash).fastDigest === true;
    const fast = legacyFixtures.hashes.filter((f) => isFast(f.hash));
    expect(fast.length).toBeGreaterThanOrEqual(4);
    const tag = crypto.randomUUID().slice(0, 8);
    const accounts = [
      ...cheap.flatMap((fixture, i) => Array.from({ length: 10 }, (_, j) => ({ email: `slow-${i}-${j}-${tag}@example.com`, hash: fixture.hash }))),
      ...fast.map((fixture, i) => ({ email: `fast-${i}-${tag}@example.com`, hash: fixture.hash })),
    ];
    await seed(users, accounts);

    // A run that may wrap only as many records as there are fast digests wraps exactly those.
    const first = await runRehashJob({ hasher: weakHasher, users, cursors }, { segments: 3, pageSize: 5, maxItems: fast.length });
    expect(first).toMatchObject({ done: false, counts: { scanned: fast.length, wrapped: fast.length } });
    const afterFirst = await allHashes(users, accounts.map((a) => a.email));
    for (const { email, hash } of accounts) expect(isWrappedByJob(afterFirst.get(email)!)).toBe(isFast(hash));
    expect(decodeCursor(first.cursor).pass).toBe('fast_digests');

    const rest = await runRehashJob({ hasher: weakHasher, users, cursors }, {});
    expect(rest).toMatchObject({ done: true, counts: { scanned: accounts.length - fast.length, wrapped: accounts.length - fast.length } });
    // A new pass counts the wrapped fast digests in its first scan, the rest in its second: once each.
    const again = await runRehashJob({ hasher: weakHasher, users, cursors }, { dryRun: true });
    expect(again.counts).toMatchObject({ scanned: accounts.length, already_wrapped: accounts.length });
    const inventory = await takeInventory({ hasher: weakHasher, users });
    expect(inventory.fastDigests).toBe(0);
    dispose();
  }, 60_000);

  it('resumes a killed run from the stored cursor and wraps each record exactly once', async () => {
    const { users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    const accounts = goodRows(150, crypto.randomUUID().slice(0, 8)).map((row) => ({ email: row.email, hash: storedFormOf(row.fixture.hash) }));
    await seed(users, accounts);
    const total = emptyRehashCounts();
    const { users: counted, writes } = countingStore(users);

    // Run 1 stops after 40 accounts (as at the end of its time); its cursor is in the table.
    const first = await runRehashJob({ hasher: weakHasher, users: counted, cursors }, { segments: 4, pageSize: 10, maxItems: 40 });
    addRehashCounts(total, first.counts);
    expect(first.done).toBe(false);
    expect(first.counts.scanned).toBe(40);
    expect(await cursors.get(REHASH_JOB_NAME)).toBe(first.cursor);

    // Run 2 dies on its 25th write: no chance to finish its page or save its last position.
    const { users: failing, writes: failingWrites } = countingStore(users, { failOnWrite: 25 });
    await expect(runRehashJob({ hasher: weakHasher, users: failing, cursors }, { pageSize: 10 })).rejects.toBeInstanceOf(StorageUnavailableError);
    for (const [email, n] of failingWrites) writes.set(email, (writes.get(email) ?? 0) + n);
    const afterCrash = await allHashes(users, accounts.map((a) => a.email));
    total.wrapped += failingWrites.size;

    // Run 3 has a time budget that runs out after a few accounts.
    let checks = 0;
    const third = await runRehashJob({ hasher: weakHasher, users: counted, cursors }, { pageSize: 10, remainingMs: () => (++checks > 30 ? 0 : 1000) });
    expect(third.done).toBe(false);
    addRehashCounts(total, third.counts);

    // Run 4 resumes without being told anything and finishes.
    const last = await runRehashJob({ hasher: weakHasher, users: counted, cursors }, {});
    addRehashCounts(total, last.counts);
    expect(last.done).toBe(true);
    expect(decodeCursor((await cursors.get(REHASH_JOB_NAME))!).segments.every((s) => s.done)).toBe(true);

    expect(total.wrapped).toBe(accounts.length);
    expect([...writes.values()].every((n) => n === 1)).toBe(true);
    expect(writes.size).toBe(accounts.length);
    const final = await allHashes(users, accounts.map((a) => a.email));
    for (const { email } of accounts) {
      expect(isWrappedByJob(final.get(email)!)).toBe(true);
      // Records wrapped before the crash were not wrapped again.
      if (isWrappedByJob(afterCrash.get(email)!)) expect(final.get(email)).toBe(afterCrash.get(email));
    }
    // A finished cursor means the next run is a new pass, which finds nothing left to wrap.
    const next = await runRehashJob({ hasher: weakHasher, users, cursors });
    expect(next.counts).toMatchObject({ scanned: accounts.length, wrapped: 0, already_wrapped: accounts.length });
    dispose();
  }, 60_000);

  it('stops rather than fight when another run moved the stored cursor', async () => {
    const { users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    await seed(users, goodRows(30, crypto.randomUUID().slice(0, 8)).map((row) => ({ email: row.email, hash: row.fixture.hash })));
    const first = await runRehashJob({ hasher: weakHasher, users, cursors }, { maxItems: 5, segments: 1, pageSize: 5 });
    // A second run that read the cursor before the first one's last save.
    const stale = { get: async () => undefined, put: (input: Parameters<JobCursorStore['put']>[0]) => cursors.put(input) };
    await expect(runRehashJob({ hasher: weakHasher, users, cursors: stale }, { cursor: first.cursor })).rejects.toBeInstanceOf(JobCursorChangedError);
    expect(await cursors.get(REHASH_JOB_NAME)).toBe(first.cursor);
    dispose();
  });

  it('--dry-run counts what it would do and writes nothing, not even the cursor', async () => {
    const { users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    const accounts = goodRows(80, crypto.randomUUID().slice(0, 8)).map((row) => ({ email: row.email, hash: storedFormOf(row.fixture.hash) }));
    await seed(users, accounts);
    const { users: counted, writes } = countingStore(users);
    const result = await runRehashJob({ hasher: weakHasher, users: counted, cursors }, { dryRun: true, pageSize: 9 });
    expect(result).toMatchObject({ done: true, dryRun: true, counts: { scanned: 80, wrapped: 80 } });
    expect(writes.size).toBe(0);
    expect(await cursors.get(REHASH_JOB_NAME)).toBeUndefined();
    const stored = await allHashes(users, accounts.map((a) => a.email));
    for (const a of accounts) expect(stored.get(a.email)).toBe(a.hash);
    dispose();
  });

  it('moves peppered records from k1 to k2, seals plain argon2, wraps legacy, and they all log in', async () => {
    const underK1 = createPasswordHasher({ ...WEAK, pepper: { currentKeyId: 'k1', keys: { k1: key(1) } } });
    const underK2 = createPasswordHasher({ ...WEAK, pepper: { currentKeyId: 'k2', keys: { k2: key(2), k1: key(1) } } });
    const onlyK2 = createPasswordHasher({ ...WEAK, pepper: { currentKeyId: 'k2', keys: { k2: key(2) } } });
    expect(await currentPepperKeyId(underK2)).toBe('k2');
    expect(await currentPepperKeyId(weakHasher)).toBeUndefined();

    const { deps, users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: underK2 });
    const password = (i: number) => `pepper password number ${i}`;
    const peppered = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => ({ email: `k1-${i}-${crypto.randomUUID()}@example.com`, hash: await underK1.hash(password(i)), password: password(i) })),
    );
    const plain = { email: `plain-${crypto.randomUUID()}@example.com`, hash: await weakHasher.hash(password(99)), password: password(99) };
    const legacy = { email: `legacy-${crypto.randomUUID()}@example.com`, hash: cheap[0]!.hash, password: cheap[0]!.password };
    await seed(users, [...peppered, plain, legacy]);

    const before = await takeInventory({ hasher: underK2, users });
    expect(before.groups.find((g) => g.pepperKeyId === 'k1')).toMatchObject({ count: 20, status: 'to_rotate' });

    const result = await runRehashJob({ hasher: underK2, users, cursors });
    expect(result.counts).toMatchObject({ rotated: 21, wrapped: 1, failed: 0 });
    const inventory = await takeInventory({ hasher: underK2, users });
    expect(inventory.groups.find((g) => g.pepperKeyId === 'k2')).toMatchObject({ scheme: 'argon2id', count: 21, status: 'up_to_date' });
    expect(inventory.groups.some((g) => g.pepperKeyId === 'k1')).toBe(false);
    // The legacy record is wrapped and sealed in one step: nothing in the table is left unpeppered.
    expect(inventory.groups.find((g) => g.wrapped)).toMatchObject({ pepperKeyId: 'k2', count: 1, status: 'awaiting_login' });

    // k1 can be retired: every record opens under k2 alone.
    for (const account of [...peppered, plain, legacy]) {
      const stored = (await users.getUserByEmail(account.email))!.passwordHash;
      expect((await onlyK2.verify(stored, account.password)).ok).toBe(true);
    }
    for (const account of [peppered[0]!, plain, legacy]) await loginSession(deps, { email: account.email, password: account.password });
    dispose();
  });

  it('runs as a Lambda: { cursor?, dryRun?, segments? } in, { cursor, done, counts } out, within the time left', async () => {
    const { users, cursors, dispose } = await createAuthFixture(server.endpoint, { hasher: weakHasher });
    await seed(users, goodRows(40, crypto.randomUUID().slice(0, 8)).map((row) => ({ email: row.email, hash: row.fixture.hash })));
    const logged: unknown[] = [];
    const handler = createRehashHandler(async () => ({ hasher: weakHasher, users, cursors }), { info: (...args: unknown[]) => logged.push(args) });

    // Less time left than the margin: nothing done, a cursor to continue from.
    const starved = await handler({ segments: 2 }, { getRemainingTimeInMillis: () => 5_000 });
    expect(starved).toMatchObject({ done: false, counts: { scanned: 0 } });
    const dry = await handler({ dryRun: true, cursor: starved.cursor }, { getRemainingTimeInMillis: () => 60_000 });
    expect(dry).toMatchObject({ done: true, dryRun: true, counts: { scanned: 40, wrapped: 40 } });
    const real = await handler({ cursor: starved.cursor, 'detail-type': 'Scheduled Event' }, { getRemainingTimeInMillis: () => 60_000 });
    expect(real).toMatchObject({ done: true, counts: { wrapped: 40 } });
    expect(Object.keys(real).sort()).toEqual(['counts', 'cursor', 'done', 'dryRun', 'problems']);
    // The log line has counts, not the cursor (it holds a key, i.e. an email).
    expect(JSON.stringify(logged)).not.toContain('@');
    expect(JSON.stringify(logged)).not.toContain(real.cursor);
    await expect(handler({ segments: 0 }, { getRemainingTimeInMillis: () => 60_000 })).rejects.toMatchObject({ code: 'ERR_REHASH_INPUT_INVALID' });
    await expect(handler({ cursor: 'bm90IGpzb24' }, { getRemainingTimeInMillis: () => 60_000 })).rejects.toMatchObject({ code: 'ERR_REHASH_CURSOR_INVALID' });
    dispose();
  });
});
