import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImportCommand } from '../packages/server/src/cli/commands/import.js';
import { parseCsv } from '../packages/server/src/features/import/parse-csv.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { dynamoDbServers, freePort, startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { runPasslane } from './support/run-process.js';
import { legacyFixtures } from './support/fixtures.js';
import { goodRows, storedFormOf, writtenEmail } from './support/import-rows.js';

const GOOD_ROWS = 3000;
const bcrypt = legacyFixtures.hashes.find((f) => f.id === 'bcrypt-2b-c4-ascii')!;
const hostile = legacyFixtures.hostile.filter((h) => h.id.startsWith('argon2id-') || h.id.startsWith('passlib-scrypt-ln')).slice(0, 5);

/** Runs `passlane import` in-process, capturing stdout and stderr. */
async function importCommand(args: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runImportCommand(args, { stdout, stderr, env });
  return { code, stdout: out, stderr: err };
}

interface BadRow {
  text: string;
  code: string;
}

/** 3000 good rows of every legacy scheme, with bad rows of each kind spread among them. */
function buildImportFile(dir: string, tag: string, existingEmail: string) {
  const rows = goodRows(GOOD_ROWS, tag);
  const bad: BadRow[] = [
    { text: '{"email": "broken@example.com", "hash": ', code: 'ERR_IMPORT_ROW_MALFORMED' },
    { text: '["not", "an", "object"]', code: 'ERR_IMPORT_ROW_MALFORMED' },
    { text: JSON.stringify({ email: 'no-at-sign.example.com', hash: bcrypt.hash }), code: 'ERR_IMPORT_EMAIL_INVALID' },
    { text: JSON.stringify({ hash: bcrypt.hash }), code: 'ERR_IMPORT_EMAIL_INVALID' },
    { text: JSON.stringify({ email: `des-${tag}@example.com`, hash: '{CRYPT}sUjDZfAi20m2s' }), code: 'ERR_HASH_UNSUPPORTED' },
    { text: JSON.stringify({ email: `plain-${tag}@example.com`, hash: 'password' }), code: 'ERR_HASH_UNSUPPORTED' },
    { text: JSON.stringify({ email: `nohash-${tag}@example.com` }), code: 'ERR_IMPORT_HASH_MISSING' },
    { text: JSON.stringify({ email: `trunc-${tag}@example.com`, hash: '$2b$04$tooShort' }), code: 'ERR_HASH_MALFORMED' },
    ...hostile.map((h, i) => ({ text: JSON.stringify({ email: `hostile-${i}-${tag}@example.com`, hash: h.hash }), code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' })),
    {
      text: JSON.stringify({ email: `pepper-${tag}@example.com`, hash: '$pepper$v=1,k=k1$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      code: 'ERR_IMPORT_HASH_PEPPERED',
    },
    { text: JSON.stringify({ email: `badid-${tag}@example.com`, hash: bcrypt.hash, userId: 'has space' }), code: 'ERR_IMPORT_USER_ID_INVALID' },
    { text: JSON.stringify({ email: `baddate-${tag}@example.com`, hash: bcrypt.hash, createdAt: 'yesterday' }), code: 'ERR_IMPORT_CREATED_AT_INVALID' },
    // The same mailbox as good row 5, typed differently: the first row in the file wins.
    { text: JSON.stringify({ email: ` ${rows[5]!.email.toUpperCase()}`, hash: bcrypt.hash }), code: 'ERR_IMPORT_DUPLICATE_EMAIL' },
    { text: JSON.stringify({ email: rows[2000]!.email, hash: rows[2000]!.fixture.hash }), code: 'ERR_IMPORT_DUPLICATE_EMAIL' },
  ];
  const lines: string[] = [];
  const badLines: Array<{ line: number; code: string }> = [];
  const spacing = Math.floor(GOOD_ROWS / bad.length);
  rows.forEach((row, i) => {
    lines.push(JSON.stringify({ email: writtenEmail(row.email, i), hash: row.fixture.hash, ...(i % 3 === 0 && { userId: `imported-${tag}-${i}` }), ...(i % 5 === 0 && { createdAt: '2019-04-01T10:00:00Z' }) }));
    if (i % 500 === 0) lines.push(''); // blank lines are skipped, not counted
    // Bad rows only after their good twins (duplicates of row 5 and row 2000 come later).
    const badIndex = i / spacing - 1;
    if (Number.isInteger(badIndex) && bad[badIndex] && (badIndex < bad.length - 1 || i > 2000)) {
      lines.push(bad[badIndex]!.text);
      badLines.push({ line: lines.length, code: bad[badIndex]!.code });
    }
  });
  // An account that already exists, listed with a different hash: never overwritten.
  lines.push(JSON.stringify({ email: existingEmail, hash: legacyFixtures.hashes.find((f) => f.scheme === 'django_pbkdf2_sha256')!.hash }));
  const path = join(dir, `users-${tag}.jsonl`);
  writeFileSync(path, lines.join('\n') + '\n');
  expect(badLines).toHaveLength(bad.length);
  return { path, rows, badLines };
}

describe.each(dynamoDbServers)('passlane import on $name', ({ start }) => {
  let server: RunningDynamoDb;
  let client: DynamoDBClient;
  let store: AccountStore;
  let env: Record<string, string>;
  const tableName = `passlane-import-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), 'passlane-import-'));

  beforeAll(async () => {
    server = await start();
    client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
    await ensureTable(client, tableName);
    store = new AccountStore(client, tableName);
    env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: tableName, PASSLANE_PEPPER_KEYS: '' };
  });

  afterAll(async () => {
    client?.destroy();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true }); // rejects files hold hashes
  });

  // 3000 conditional writes against a real server on 2 shared cores take ~25 s: too close to the default timeout.
  it('imports 3000 accounts of mixed schemes, rejects bad rows by line, never overwrites, and re-runs as all skipped', async () => {
    const tag = randomUUID().slice(0, 8);
    const existingEmail = `existing-${tag}@example.com`;
    await store.createUser({ email: existingEmail, userId: 'existing-user', passwordHash: bcrypt.hash, createdAt: new Date() });
    const { path, rows, badLines } = buildImportFile(dir, tag, existingEmail);

    const first = await importCommand([path, '--json', '--concurrency', '16', '--max-writes-per-second', '5000'], env);
    expect(first.code).toBe(1); // rows were rejected
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ rows: GOOD_ROWS + badLines.length + 1, imported: GOOD_ROWS, skipped: 1, rejected: badLines.length, complete: true });

    // The rejects file lists exactly the bad rows, by line, with the row for the operator.
    const rejects = readFileSync(`${path}.rejects.jsonl`, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rejects.map(({ line, code }) => ({ line, code })).sort((a, b) => a.line - b.line)).toEqual(badLines);
    for (const reject of rejects) expect(typeof reject.raw).toBe('string');
    expect(rejects.find((r) => r.code === 'ERR_IMPORT_DUPLICATE_EMAIL').message).toMatch(/^same email as line \d+$/);

    // Console output carries counts and codes only: no hash, no email.
    const console = first.stdout + first.stderr;
    expect(console).not.toContain('@');
    for (const fixture of legacyFixtures.hashes) expect(console).not.toContain(fixture.hash.slice(-20));

    // Stored as import writes them: normalised email, {ARGON2} for foreign argon2, given userId and createdAt.
    for (const i of [0, 1, 7, 11, 22, 33, 1999]) {
      const stored = (await store.getUserByEmail(rows[i]!.email))!;
      expect(stored.passwordHash).toBe(storedFormOf(rows[i]!.fixture.hash));
      if (i % 3 === 0) expect(stored.userId).toBe(`imported-${tag}-${i}`);
      else expect(stored.userId).toMatch(/^[0-9a-f-]{36}$/);
      if (i % 5 === 0) expect(stored.createdAt.toISOString()).toBe('2019-04-01T10:00:00.000Z');
    }
    // The pre-existing account keeps its hash and userId.
    expect(await store.getUserByEmail(existingEmail)).toMatchObject({ userId: 'existing-user', passwordHash: bcrypt.hash });
    // The duplicate of row 5 did not replace it.
    expect((await store.getUserByEmail(rows[5]!.email))!.passwordHash).toBe(storedFormOf(rows[5]!.fixture.hash));

    const again = await importCommand([path, '--json', '--concurrency', '16', '--max-writes-per-second', '5000'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: summary.rows, imported: 0, skipped: GOOD_ROWS + 1, rejected: badLines.length, complete: true });
    expect((await store.getUserByEmail(rows[0]!.email))!.passwordHash).toBe(storedFormOf(rows[0]!.fixture.hash));
  }, 120_000);

  it('imports CSV with quoted fields, escaped quotes and line breaks inside quotes, and refuses a taken userId', async () => {
    const tag = randomUUID().slice(0, 8);
    const [a, b, c] = legacyFixtures.hashes.filter((f) => f.scheme.startsWith('django_'));
    await store.createUser({ email: `owner-${tag}@example.com`, userId: `taken-${tag}`, passwordHash: bcrypt.hash, createdAt: new Date() });
    const csv = [
      'Email,hash,userId,createdAt,note',
      `a-${tag}@example.com,${a!.hash},,2020-01-02,plain`,
      `"B-${tag}@Example.com","${b!.hash}","id""${tag}",,"two`,
      `lines, and a comma"`,
      `c-${tag}@example.com,${c!.hash},"broken"quote,,x`,
      `d-${tag}@example.com,${c!.hash},taken-${tag},,x`,
      `e-${tag}@example.com,${c!.hash}`,
      `"f-${tag}@example.com",${a!.hash},,,"last`,
    ].join('\r\n');
    const path = join(dir, `users-${tag}.csv`);
    writeFileSync(path, `\uFEFF${csv}\r\n`);
    const run = await importCommand([path, '--json', '--rejects', join(dir, `rejects-${tag}.jsonl`)], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 6, imported: 2, rejected: 4, complete: true });
    expect((await store.getUserByEmail(`b-${tag}@example.com`))!).toMatchObject({ userId: `id"${tag}`, passwordHash: b!.hash });
    expect((await store.getUserByEmail(`a-${tag}@example.com`))!.createdAt.toISOString()).toBe('2020-01-02T00:00:00.000Z');
    const rejects = readFileSync(join(dir, `rejects-${tag}.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rejects.map(({ line, code }) => ({ line, code })).sort((x, y) => x.line - y.line)).toEqual([
      { line: 5, code: 'ERR_IMPORT_ROW_MALFORMED' }, // stray quote; line numbers count the line break inside quotes
      { line: 6, code: 'ERR_IMPORT_USER_ID_TAKEN' },
      { line: 7, code: 'ERR_IMPORT_ROW_MALFORMED' }, // too few fields
      { line: 8, code: 'ERR_IMPORT_ROW_MALFORMED' }, // unterminated quote at the end of the file
    ]);
  });

  it('keys imported rows as logins key them: spellings of one mailbox are duplicates, invisible ones are refused', async () => {
    const tag = randomUUID().slice(0, 8);
    const rows = [
      { email: `ada-${tag}@B\u00dcCHER.example`, hash: bcrypt.hash },
      { email: `ada-${tag}@xn--bcher-kva.example`, hash: bcrypt.hash },
      { email: `ada-${tag}@\uff42\u00fc\uff43\uff48\uff45\uff52.example`, hash: bcrypt.hash },
      { email: `eve-${tag}@exa\u00admple.com`, hash: bcrypt.hash },
      { email: `eve-${tag}@example.com`, hash: bcrypt.hash },
    ];
    const path = join(dir, `canonical-${tag}.jsonl`);
    writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n'));
    const run = await importCommand([path, '--json', '--rejects', join(dir, `canonical-${tag}.rejects.jsonl`)], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 5, imported: 2, rejected: 3 });
    const rejects = readFileSync(join(dir, `canonical-${tag}.rejects.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rejects.map(({ line, code }) => [line, code])).toEqual([
      [2, 'ERR_IMPORT_DUPLICATE_EMAIL'],
      [3, 'ERR_IMPORT_DUPLICATE_EMAIL'],
      [4, 'ERR_IMPORT_EMAIL_INVALID'],
    ]);
    expect(await store.getUserByEmail(`ada-${tag}@xn--bcher-kva.example`)).toBeDefined();
    expect(await store.getUserByEmail(`ada-${tag}@b\u00fccher.example`)).toBeUndefined();
    expect(await store.getUserByEmail(`eve-${tag}@example.com`)).toBeDefined();
    expect(run.stdout + run.stderr).not.toContain('@');
  });

  it('makes the rejects file owner-only even when it exists already, removes it when nothing is rejected, and refuses an unwritable one before importing', async () => {
    const tag = randomUUID().slice(0, 8);
    const path = join(dir, `mode-${tag}.jsonl`);
    writeFileSync(path, `${JSON.stringify({ email: `mode-${tag}@example.com`, hash: 'not a hash' })}\n`);
    const rejectsPath = join(dir, `mode-${tag}.rejects.jsonl`);
    writeFileSync(rejectsPath, 'left by an earlier run\n', { mode: 0o644 });
    const run = await importCommand([path, '--rejects', rejectsPath], env);
    expect(run.code).toBe(1);
    // `mode` on open applies only to new files: the old 0644 must not survive.
    expect(statSync(rejectsPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(rejectsPath, 'utf8')).not.toContain('earlier run');

    const good = join(dir, `unwritable-${tag}.jsonl`);
    writeFileSync(good, `${JSON.stringify({ email: `unwritable-${tag}@example.com`, hash: bcrypt.hash })}\n`);
    // Nothing rejected: no rejects file, and the earlier run's is gone rather than left to mislead.
    const cleanFile = join(dir, `clean-${tag}.jsonl`);
    writeFileSync(cleanFile, `${JSON.stringify({ email: `clean-${tag}@example.com`, hash: bcrypt.hash })}\n`);
    const clean = await importCommand([cleanFile, '--rejects', rejectsPath, '--json'], env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).not.toHaveProperty('rejectsFile');
    expect(existsSync(rejectsPath)).toBe(false);
    const refused = await importCommand([good, '--rejects', join(dir, 'no-such-dir', 'rejects.jsonl')], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write the rejects file/);
    expect(await store.getUserByEmail(`unwritable-${tag}@example.com`)).toBeUndefined();
  });

  it('stops at the first storage failure and says how to continue', async () => {
    const path = join(dir, 'missing-table.jsonl');
    writeFileSync(path, `${JSON.stringify({ email: 'x@example.com', hash: bcrypt.hash })}\n`);
    const run = await importCommand([path], { ...env, PASSLANE_TABLE: `missing-${randomUUID()}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ERR_IMPORT_ABORTED: import stopped at line 1: storage unavailable during getUserByEmail: ResourceNotFoundException/);
    expect(run.stderr).toMatch(/run the same import again/i);
  });

  it('answers usage errors with the usage and exit 2', async () => {
    expect((await importCommand([], env)).code).toBe(2);
    const unknown = await importCommand([join(dir, 'users.txt')], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--format jsonl/);
  });
});

describe('parseCsv', () => {
  async function* chunks(...parts: string[]) {
    yield* parts;
  }
  const parse = async (...parts: string[]) => {
    const records = [];
    for await (const record of parseCsv(chunks(...parts), 100)) records.push(record);
    return records;
  };

  it('parses RFC 4180 across chunk boundaries', async () => {
    const records = await parse('a,"b ""q', '"" c",d\r', '\ne,"multi\nline"', ',f\n\n"",x');
    expect(records.map((r) => [r.line, r.fields, r.error])).toEqual([
      [1, ['a', 'b "q" c', 'd'], undefined],
      [2, ['e', 'multi\nline', 'f'], undefined],
      [5, ['', 'x'], undefined],
    ]);
  });

  it('flags broken records and goes on with the next line', async () => {
    const records = await parse('ok,1\nbad"quote,2\n"closed"x,3\n', `${'y'.repeat(150)}\nlast,4`);
    expect(records.map((r) => [r.line, r.error])).toEqual([
      [1, undefined],
      [2, 'stray-quote'],
      [3, 'stray-quote'],
      [4, 'too-long'],
      [5, undefined],
    ]);
    expect(records[3]!.raw).toHaveLength(100);
  });

  it('keeps memory bounded inside an unterminated quote, where the rest of the file is one record', async () => {
    // A stray opening quote swallows every later line into one field: past the cap, nothing of
    // it may be buffered, however long the file is.
    const records = await parse('ok,1\n"open', ...Array.from({ length: 50 }, () => `${'z'.repeat(990)}""\n`));
    expect(records.map((r) => [r.line, r.error])).toEqual([
      [1, undefined],
      [2, 'too-long'],
    ]);
    expect(records[1]!.raw).toHaveLength(100);
    expect(records[1]!.fields.join('').length).toBeLessThanOrEqual(100);
  });
});

describe('passlane import and rehash: what to fix, and how far they got', () => {
  const dir = mkdtempSync(join(tmpdir(), 'passlane-import-hints-'));
  const file = join(dir, 'users.jsonl');
  writeFileSync(file, Array.from({ length: 18 }, (_, i) => JSON.stringify({ email: `hint-${i}@example.com`, hash: bcrypt.hash })).join('\n') + '\n');
  // No AWS setup at all (blank counts as unset for passlane; the SDK reads some of these itself),
  // and no instance metadata: nothing may leave this machine.
  const noAws = {
    DYNAMODB_ENDPOINT: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_PROFILE: '',
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    PASSLANE_PEPPER_KEYS: '',
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the missing region or credentials and the variables that fix it; the summary stops where the error does', async () => {
    const noRegion = await runPasslane(['import', file], { env: noAws });
    expect(noRegion.code).toBe(1);
    const line = /import stopped at line (\d+): storage unavailable during \w+: Error: Region not accepted: region="" is not a valid hostname component\. \(no AWS region is configured\)/.exec(noRegion.stderr)?.[1];
    expect(line, noRegion.stderr).toBeDefined();
    expect(noRegion.stdout).toMatch(new RegExp(`^Stopped at line ${line} after \\d+\\.\\d s: 0 imported, 0 skipped \\(account exists\\), 0 rejected$`, 'm'));
    expect(noRegion.stderr).toContain("Set AWS_REGION to the table's region (and AWS credentials), or DYNAMODB_ENDPOINT=http://127.0.0.1:8000 to use the DynamoDB `npm start` runs.");

    // The README's `passlane inventory` without npm start's endpoint: the same words.
    const inventory = await runPasslane(['inventory'], { env: noAws });
    expect(inventory.code).toBe(2);
    expect(inventory.stderr).toContain("Set AWS_REGION to the table's region (and AWS credentials), or DYNAMODB_ENDPOINT=http://127.0.0.1:8000 to use the DynamoDB `npm start` runs.");

    const noCredentials = await runPasslane(['rehash'], { env: { ...noAws, AWS_REGION: 'eu-west-1' } });
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toContain('storage unavailable during getJobCursor: CredentialsProviderError (no AWS credentials were found)');
    expect(noCredentials.stderr).toContain('Give AWS credentials (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
    expect(noCredentials.stderr).not.toMatch(/resume/);
  });

  it('rehash against a refused connection names the endpoint and does not offer to resume what never started', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const run = await runPasslane(['rehash'], { env: { ...noAws, DYNAMODB_ENDPOINT: endpoint } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ECONNREFUSED (nothing answered at the endpoint)');
    expect(run.stderr).toContain(`Nothing answered at DYNAMODB_ENDPOINT=${endpoint}: is npm start (or your DynamoDB) running there?`);
    expect(run.stderr).toContain('Nothing was written; once that is fixed, run passlane rehash again.');
    expect(run.stderr).not.toMatch(/resume from the stored cursor/);
  });

  describe('progress', () => {
    let server: RunningDynamoDb;
    let env: Record<string, string>;
    beforeAll(async () => {
      server = await startDynalite();
      const client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
      const table = `passlane-progress-${randomUUID()}`;
      await ensureTable(client, table);
      client.destroy();
      env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: table, PASSLANE_PEPPER_KEYS: '' };
    });
    afterAll(() => server?.stop());

    /** The import in-process, its clock stepped 6 s per look, so every row is due a progress line. */
    async function importWithProgress(tty: boolean, table: string): Promise<string> {
      const stdout = new PassThrough();
      const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 200 });
      let err = '';
      stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      stdout.resume();
      let now = 0;
      const code = await runImportCommand([file, '--concurrency', '1'], { stdout, stderr, env: { ...env, PASSLANE_TABLE: table }, clock: () => (now += 6_000) });
      expect(code).toBe(0);
      return err;
    }

    it('counts the rows taken, not the bytes read ahead: a small file starts near 0%, not at 100%', async () => {
      const piped = (await importWithProgress(false, env.PASSLANE_TABLE!)).trim().split('\n');
      const percents = piped.map((line) => Number(/^\s*(\d+)% /.exec(line)?.[1]));
      expect(piped.length).toBeGreaterThan(10);
      expect(percents[0]).toBeLessThan(10);
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
      expect(percents.at(-1)).toBeGreaterThan(90);

      // On a terminal, the bar: redrawn in place, filling up.
      const client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
      const table = `passlane-progress-${randomUUID()}`;
      await ensureTable(client, table);
      client.destroy();
      const bars = (await importWithProgress(true, table)).split('\r\x1b[2K').filter((line) => line !== '');
      expect(bars[0]).toMatch(/^\[#{0,2}-{22,24}\]\s+\d% 1 rows/);
    });
  });
});
