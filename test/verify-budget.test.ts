/**
 * Stored hashes must fit the function that verifies them: what its memory and time allow is
 * turned into bounds checked when a record is parsed, at import and at login.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { DEFAULT_STORED_HASH_LIMITS } from '../packages/passlane/src/policy.js';
import { DEPLOYED_VERIFY_BUDGET, limitsForBudget, tighterLimits } from '../packages/passlane/src/verify-budget.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import type { AuditEvent } from '../packages/server/src/accounts/audit-events.js';
import { InvalidCredentialsError } from '../packages/server/src/accounts/errors.js';
import { login } from '../packages/server/src/features/login/login.js';
import { createAuthDependencies } from './support/app-dependencies.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { readFixtureFile } from './support/fixtures.js';
import { runPasslane } from './support/run-process.js';
import { ISOLATE_HASH_LIMITS, ISOLATE_VERIFY_BUDGET } from '../packages/server/src/runtimes/workers/edge-limits.js';

const salt = 'c2FsdHNhbHRzYWx0c2FsdA';
const tag = 'A'.repeat(43);
const argon2 = (m: number, t: number) => `$argon2id$v=19$m=${m},t=${t},p=1$${salt}$${tag}`;

describe('limitsForBudget', () => {
  it('gives half the memory to one hash and the time at the CPU share Lambda gives that memory', () => {
    const limits = limitsForBudget(DEPLOYED_VERIFY_BUDGET, true);
    expect(limits.argon2MaxMemoryKiB).toBe(512 * 1024);
    // 5 s at 1024/1769 of a vCPU, at 1,000 KiB-passes per ms: OWASP's settings fit many times over.
    expect(limits.argon2MaxWork).toBe(Math.floor(5000 * (1024 / 1769) * 1000));
    expect(limits.bcryptMaxCost).toBe(14);
    expect(limits.pbkdf2MaxIterations).toBe(Math.floor((5000 * (1024 / 1769)) / 0.001));
    // Never looser than the defaults.
    expect(limits.scryptMaxN).toBe(DEFAULT_STORED_HASH_LIMITS.scryptMaxN);
    expect(limitsForBudget({ memoryMiB: 10_240, timeMs: 900_000 }, false)).toMatchObject({
      argon2MaxMemoryKiB: DEFAULT_STORED_HASH_LIMITS.argon2MaxMemoryKiB,
      bcryptMaxCost: DEFAULT_STORED_HASH_LIMITS.bcryptMaxCost,
    });
    expect(limitsForBudget({}, true)).toEqual({});
    expect(tighterLimits({ argon2MaxMemoryKiB: 64 * 1024, scryptMaxN: 2 ** 16 }, limits)).toMatchObject({ argon2MaxMemoryKiB: 64 * 1024, scryptMaxN: 2 ** 16, bcryptMaxCost: 14 });
  });

  it('refuses what does not fit, before any hashing, and keeps what does', () => {
    const hasher = createPasswordHasher({ pepper: false, limits: limitsForBudget({ memoryMiB: 256, timeMs: 1000 }, true) });
    for (const stored of [argon2(256 * 1024, 1), argon2(65536, 10), `$2b$13$${'a'.repeat(53)}`]) {
      expect(() => hasher.describe(stored), stored.slice(0, 30)).toThrow(expect.objectContaining({ code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' }));
    }
    expect(hasher.describe(argon2(19456, 2)).scheme).toBe('argon2id');
  });

  it("verifies the PHP applications' and passlib's phpass and Drupal records within each deployed budget", async () => {
    const { fixture } = readFixtureFile('unix-hashes.json');
    const budgets = {
      lambda: limitsForBudget(DEPLOYED_VERIFY_BUDGET, true),
      cli: limitsForBudget(DEPLOYED_VERIFY_BUDGET, false),
      worker: tighterLimits(ISOLATE_HASH_LIMITS, limitsForBudget(ISOLATE_VERIFY_BUDGET, false)),
    };
    // WordPress $P$B (2^13), phpBB $H$9 (2^11), passlib $P$H (2^19), Drupal 7 $S$D (2^15) and its U$S$9 (2^11).
    const ids = ['phpass-wordpress-hashpassword', 'phpass-H-9-phpbb', 'phpass-passlib-default', 'drupal7-user-hash-password', 'drupal7-U-S-9-md5'];
    for (const [name, limits] of Object.entries(budgets)) {
      const hasher = createPasswordHasher({ backend: 'native', pepper: false, limits });
      for (const f of ids.map(fixture)) {
        expect(hasher.describe(f.hash).scheme, `${f.id} on ${name}`).toBe(f.scheme);
        // passlib's 2^19 (most of a second) once, on the deployed functions: the isolate admits
        // passwords of up to 39 bytes for it, the CLI up to 295.
        if (name !== 'lambda' && f.id === 'phpass-passlib-default') continue;
        expect((await hasher.verify(f.hash, f.password)).ok, `${f.id} on ${name}`).toBe(true);
        expect((await hasher.verify(f.hash, f.wrongPassword)).ok, `${f.id} on ${name}`).toBe(false);
      }
    }
  }, 60_000);

  it('reads the budget from PASSLANE_VERIFY_MEMORY_MB / _TIME_MS, and on Lambda the function memory', () => {
    expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'f', AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' }).hasher).toMatchObject({ verifyBudget: { memoryMiB: 1024 }, onLambda: true });
    expect(readConfig({ PASSLANE_VERIFY_MEMORY_MB: '512', PASSLANE_VERIFY_TIME_MS: '2000' }).hasher.verifyBudget).toEqual({ memoryMiB: 512, timeMs: 2000 });
    expect(() => readConfig({ PASSLANE_VERIFY_TIME_MS: 'soon' })).toThrow(/PASSLANE_VERIFY_TIME_MS/);
  });
});

describe('a record over the budget', () => {
  let dynamo: RunningDynamoDb;
  const dir = mkdtempSync(join(tmpdir(), 'passlane-budget-'));
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => {
    await dynamo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is answered like a wrong password at login, with an audit event', async () => {
    const table = `budget-${crypto.randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table);
    const events: AuditEvent[] = [];
    const deps = await createAuthDependencies(
      { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table, PASSLANE_VERIFY_MEMORY_MB: '128', PASSLANE_DATA_DIR: dir },
      { audit: (event) => events.push(event) },
    );
    const email = `big-${crypto.randomUUID()}@example.com`;
    await new AccountStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), table).createUser({
      email,
      userId: 'big-user',
      passwordHash: argon2(128 * 1024, 2),
      createdAt: new Date(),
    });
    await expect(login(deps, { email, password: 'whatever it was', sourceIp: '192.0.2.1' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(events).toContainEqual({ type: 'auth.stored_hash_rejected', userId: 'big-user', code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
  });

  it('is answered like a wrong password at login for a phpass password longer than its rounds allow (audited), and lets a short one in', async () => {
    const table = `budget-${crypto.randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table);
    const events: AuditEvent[] = [];
    // 100 ms: 57,142 blocks, so the 2^15 rounds of a $P$D record take passwords of one MD5 block (up to 39 bytes).
    const deps = await createAuthDependencies(
      { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table, PASSLANE_VERIFY_TIME_MS: '100', PASSLANE_DATA_DIR: dir },
      { audit: (event) => events.push(event) },
    );
    const { fixture } = readFixtureFile('unix-hashes.json');
    const record = fixture('phpass-P-D-2e15');
    const email = `phpass-${crypto.randomUUID()}@example.com`;
    await new AccountStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), table).createUser({ email, userId: 'phpass-user', passwordHash: record.hash, createdAt: new Date() });
    const long = 'a passphrase of forty bytes, or more....';
    expect(long).toHaveLength(40);
    await expect(login(deps, { email, password: long, sourceIp: '192.0.2.1' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(events).toContainEqual({ type: 'auth.stored_hash_rejected', userId: 'phpass-user', code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
    // The record itself fits: its own password logs in.
    await expect(login(deps, { email, password: record.password, sourceIp: '192.0.2.1' })).resolves.toMatchObject({ tokenType: 'Bearer' });
  });

  it('is refused at import by the deployed functions\' budget, unless the budget says it fits', async () => {
    const table = `budget-${crypto.randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table);
    const file = join(dir, 'big.jsonl');
    // 768 MiB: within the library's default bound (1 GiB), over half of a 1,024 MiB function.
    writeFileSync(file, `${JSON.stringify({ email: `big-${crypto.randomUUID()}@example.com`, hash: `{ARGON2}${argon2(768 * 1024, 1)}` })}\n`);
    const env = { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table };
    const refused = await runPasslane(['import', file, '--json'], { env });
    expect(JSON.parse(refused.stdout)).toMatchObject({ imported: 0, rejected: 1 });
    expect(readFileSync(`${file}.rejects.jsonl`, 'utf8')).toContain('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    const fits = await runPasslane(['import', file, '--json'], { env: { ...env, PASSLANE_VERIFY_MEMORY_MB: '2048' } });
    expect(JSON.parse(fits.stdout)).toMatchObject({ imported: 1, rejected: 0 });
  });
});
