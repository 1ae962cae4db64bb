import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import bcryptjs from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { legacyFixtures } from './support/fixtures.js';
import { goodRows, storedFormOf, writtenEmail } from './support/import-rows.js';
import { runPasslane } from './support/run-process.js';

const passlane = (args: string[], env: Record<string, string>) => runPasslane(args, { env });

const ROWS = 300;

describe.each(dynamoDbServers)('passlane import, inventory and rehash --dry-run on $name', ({ start }) => {
  let server: RunningDynamoDb;
  let client: DynamoDBClient;
  const dir = mkdtempSync(join(tmpdir(), 'passlane-cli-'));

  beforeAll(async () => {
    server = await start();
    client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true }); // rejects files hold hashes
  });

  it('imports a file against DYNAMODB_ENDPOINT and PASSLANE_TABLE, then reports the inventory', async () => {
    const tableName = `passlane-cli-${randomUUID()}`;
    await ensureTable(client, tableName);
    const env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: tableName, PASSLANE_PEPPER_KEYS: '' };
    const rows = goodRows(ROWS, randomUUID().slice(0, 8));
    const lines = rows.map((row, i) => JSON.stringify({ email: writtenEmail(row.email, i), hash: row.fixture.hash }));
    lines.splice(100, 0, 'this is not json', JSON.stringify({ email: 'bad@example.com', hash: legacyFixtures.hostile[1]!.hash }));
    const file = join(dir, `${tableName}.jsonl`);
    writeFileSync(file, lines.join('\n'));

    const imported = await passlane(['import', file, '--json'], env);
    expect(imported.code).toBe(1);
    expect(JSON.parse(imported.stdout)).toMatchObject({ rows: ROWS + 2, imported: ROWS, skipped: 0, rejected: 2, rejectsFile: `${file}.rejects.jsonl` });
    const rejects = readFileSync(`${file}.rejects.jsonl`, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rejects.map((r) => [r.line, r.code])).toEqual([
      [101, 'ERR_IMPORT_ROW_MALFORMED'],
      [102, 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ]);
    expect(imported.stdout + imported.stderr).not.toContain('@');
    const store = new AccountStore(client, tableName);
    expect((await store.getUserByEmail(rows[7]!.email))!.passwordHash).toBe(storedFormOf(rows[7]!.fixture.hash));

    const human = await passlane(['import', file], env);
    expect(human.stdout).toMatch(/0 imported, 300 skipped \(account exists\), 2 rejected/);
    expect(human.stdout).not.toContain('@');

    const inventory = await passlane(['inventory', '--json'], env);
    expect(inventory.code).toBe(0);
    const counts = JSON.parse(inventory.stdout);
    expect(counts).toMatchObject({ total: ROWS, needsRehash: ROWS, wrapped: 0, byStatus: { to_wrap: ROWS, up_to_date: 0, unparseable: 0 } });
    const bcryptCount = rows.filter((row) => row.fixture.scheme === 'bcrypt').length;
    expect(counts.groups.find((g: { scheme: string }) => g.scheme === 'bcrypt').count).toBe(bcryptCount);
    expect(counts.factors).toEqual({ totp: 0, passkeyAccounts: 0, passkeys: 0, recoveryCodes: 0 });

    const table = await passlane(['inventory'], env);
    expect(table.stdout).toMatch(/^scheme\s+parameters\s+pepper\s+wrapped\s+weakness\s+needs rehash\s+next step\s+accounts$/m);
    expect(table.stdout).toMatch(new RegExp(`^bcrypt\\s+-\\s+-\\s+no\\s+-\\s+yes\\s+rehash job: wrap\\s+${bcryptCount}$`, 'm'));
    expect(table.stdout).toContain(`${ROWS} accounts: 0 up to date`);
    expect(table.stdout).toContain('Second factors: 0 accounts with TOTP (0.0%), 0 with passkeys (0.0%; 0 passkeys), 0 with recovery codes left (0.0%)');

    const dry = await passlane(['rehash', '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ done: true, dryRun: true, counts: { scanned: ROWS, wrapped: ROWS } });
    expect((await store.getUserByEmail(rows[7]!.email))!.passwordHash).toBe(storedFormOf(rows[7]!.fixture.hash));
  });

  it('counts accounts keyed by an email not in canonical form, by userId and never by email', async () => {
    const tableName = `passlane-cli-${randomUUID()}`;
    await ensureTable(client, tableName);
    const env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: tableName, PASSLANE_PEPPER_KEYS: '' };
    const store = new AccountStore(client, tableName);
    const passwordHash = legacyFixtures.hashes[0]!.hash;
    // As accounts were keyed before: trimmed and lower-cased only.
    const keyedBefore: Array<[string, string]> = [
      ['ada@example.com', 'canonical-ascii'],
      ['ada@xn--bcher-kva.example', 'canonical-a-label'],
      ['grace@bücher.example', 'to-rekey'],
      ['ada@bücher.example', 'collides-with-a-label'],
      ['bob@ｅｘａｍｐｌｅ.com', 'collides-twin-1'],
      ['bob@example．com', 'collides-twin-2'],
      ['eve@exa\u00admple.com', 'refused'],
    ];
    for (const [email, userId] of keyedBefore) await store.createUser({ email, userId, passwordHash, createdAt: new Date() });

    const inventory = await passlane(['inventory', '--json'], env);
    expect(inventory.code).toBe(0);
    const { emails } = JSON.parse(inventory.stdout);
    expect(emails).toMatchObject({ canonical: 2, rekey: 1, collides: 3, refused: 1 });
    const byUserId = (accounts: Array<{ userId: string; problem: string }>) => Object.fromEntries(accounts.map((a) => [a.userId, a.problem]));
    expect(byUserId(emails.accounts)).toEqual({
      'to-rekey': 'rekey',
      'collides-with-a-label': 'collides',
      'collides-twin-1': 'collides',
      'collides-twin-2': 'collides',
      refused: 'refused',
    });
    expect(inventory.stdout).not.toContain('@');

    const table = await passlane(['inventory'], env);
    expect(table.stdout).toContain('WARNING: 5 accounts are keyed by an email not in canonical form (1 to re-key, 3 colliding with another account, 1 refused)');
    expect(table.stdout).not.toContain('@');
  });

  it('inventory --timing: verifies one record of each cost shape and prints the pad factor, never a hash or an email', async () => {
    const tableName = `passlane-cli-${randomUUID()}`;
    await ensureTable(client, tableName);
    const env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: tableName, PASSLANE_PEPPER_KEYS: '' };
    const store = new AccountStore(client, tableName);
    const hasher = createPasswordHasher({ pepper: false });
    const hashes = [bcryptjs.hashSync('first password', 10), bcryptjs.hashSync('second password', 10), await hasher.hash('third password here')];
    for (const [i, passwordHash] of hashes.entries()) {
      await store.createUser({ email: `timing-${i}-${randomUUID()}@example.com`, userId: randomUUID(), passwordHash, createdAt: new Date() });
    }

    const json = await passlane(['inventory', '--timing', '--json'], env);
    expect(json.code).toBe(0);
    const { timing } = JSON.parse(json.stdout);
    expect(timing.rounds).toBe(5);
    expect(timing.shapes.map((s: { shape: string; accounts: number }) => [s.shape, s.accounts]).sort()).toEqual([
      ['bcrypt cost=10', 2],
      ['current', 1],
    ]);
    expect(timing.padFactor).toBeGreaterThanOrEqual(1);
    const human = await passlane(['inventory', '--timing'], env);
    expect(human.stdout).toMatch(/^shape\s+accounts\s+median ms\s+x current$/m);
    expect(human.stdout).toMatch(/^bcrypt cost=10\s+2\s+[\d.]+\s+[\d.]+x$/m);
    expect(human.stdout).toMatch(/^(Set PASSLANE_LOGIN_FAILURE_PAD_FACTOR=\d+(\.\d)? on the login functions|Every stored shape verifies within)/m);
    for (const output of [json, human]) {
      expect(output.stdout + output.stderr).not.toContain('@');
      expect(output.stdout + output.stderr).not.toContain('$2');
      expect(output.stdout + output.stderr).not.toContain('$argon2');
    }
    // Without --timing nothing is hashed, and nothing is said about timing.
    expect(JSON.parse((await passlane(['inventory', '--json'], env)).stdout).timing).toBeUndefined();
  });

  it('answers usage errors with the usage and exit 2', async () => {
    const run = await passlane(['import', '--concurrency', '0', 'x.jsonl'], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--concurrency must be a whole number/);
    expect(run.stderr).toMatch(/usage: passlane import FILE/);
    expect((await passlane(['rehash', '--help'], {})).stdout).toMatch(/usage: passlane rehash/);
  });
});

describe('Ctrl-C', () => {
  it('ends passlane inventory at once: only import and rehash trade the first Ctrl-C for a clean stop', async () => {
    // A "DynamoDB" that accepts the Scan and never answers: without Ctrl-C, inventory would wait
    // out 8 attempts of 5 s each.
    const sockets = new Set<Socket>();
    let interrupt = () => {};
    const silent = createServer((socket) => {
      sockets.add(socket);
      interrupt();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, ['--no-warnings', '--conditions=passlane-source', '--import', 'tsx', 'packages/server/src/cli/passlane.ts', 'inventory'], {
        cwd: join(import.meta.dirname, '..'),
        stdio: 'ignore',
        env: { ...process.env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`, PASSLANE_TABLE: 'never-answers' },
      });
      // Sent once (one Ctrl-C), when the command is running (its first request arrived).
      const running = child;
      interrupt = () => {
        interrupt = () => {};
        running.kill('SIGINT');
      };
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => running.once('exit', (c, s) => resolve([c, s])));
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGINT' });
    } finally {
      if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
