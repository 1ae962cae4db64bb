/**
 * `passlane users` (issue 35): an operator's actions on accounts, through the built CLI against a
 * real DynamoDB (both servers), on accounts made through the use cases. Each subcommand; the
 * deletion's confirmation (refused without a terminal, asked on one, skipped with --yes); what it
 * prints (the email only where the operator asked for that account, never a hash or a token);
 * its audit lines (stderr, the operator named); the owner's mails (the outbox, a local table's);
 * and `passlane inventory` counting the disabled account.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64Padded } from '../packages/passlane/src/encoding.js';
import { createEmailFingerprint } from '../packages/server/src/accounts/fingerprint.js';
import { runUsersCommand } from '../packages/server/src/cli/commands/users.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { register } from '../packages/server/src/features/register/register.js';
import { authenticateSession } from '../packages/server/src/features/sessions/authenticate-session.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { asCaller, createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { loginSession } from './support/login-results.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { runPasslane } from './support/run-process.js';

const PASSWORD = 'correct horse battery staple';
const OPERATOR = `cli:${userInfo().username}`;

/** Each test spawns the CLI a dozen times (a Node start each), on a machine that may be busy. */
const SPAWNING = { timeout: 180_000 };

describe.each(dynamoDbServers)('passlane users on $name', SPAWNING, ({ start }) => {
  let server: RunningDynamoDb;
  let fixture: Awaited<ReturnType<typeof createAuthFixture>>;
  let env: Record<string, string>;
  const dataDir = mkdtempSync(join(tmpdir(), 'passlane-cli-users-'));
  const outbox = join(dataDir, 'outbox');

  beforeAll(async () => {
    server = await start();
    // The server's fingerprint key, given to the CLI too: the account's sessions and factors are keyed by it.
    const key = crypto.getRandomValues(new Uint8Array(32));
    fixture = await createAuthFixture(server.endpoint, { fingerprint: createEmailFingerprint(key) });
    env = {
      DYNAMODB_ENDPOINT: server.endpoint,
      PASSLANE_TABLE: fixture.tableName,
      PASSLANE_FINGERPRINT_KEY: encodeBase64Padded(key),
      PASSLANE_PEPPER_KEYS: '',
      PASSLANE_DATA_DIR: dataDir,
    };
  });
  afterAll(async () => {
    fixture?.dispose();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const users = (args: string[]) => runPasslane(['users', ...args], { env });
  /** The kinds of the mails in the outbox, oldest first (`<time>-<kind>-<id>.eml`). */
  const mails = () => (existsSync(outbox) ? readdirSync(outbox, { withFileTypes: true }).filter((f) => f.name.endsWith('.eml')).map((f) => f.name).sort().map((name) => name.split('-').at(-2)) : []);
  const auditLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('"audit":true')).map((line) => JSON.parse(line) as Record<string, unknown>);

  async function account() {
    const email = uniqueEmail();
    const registered = await register(fixture.deps, { email, password: PASSWORD });
    if (!('userId' in registered)) throw new Error('registered without verification, so with a userId');
    const { userId } = registered;
    const { accessToken } = await loginSession(fixture.deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    return { email, userId, accessToken };
  }

  it('find (in any form of the address), show and list: the email where asked, never a hash; an unknown id exits 1', async () => {
    const ada = await account();
    const found = await users(['find', ada.email.toUpperCase(), '--json']);
    expect(found.code).toBe(0);
    const view = JSON.parse(found.stdout) as Record<string, unknown>;
    expect(view).toMatchObject({ userId: ada.userId, email: ada.email, sessions: 1, factors: { totp: false, recoveryCodes: 0, passkeys: [] } });
    expect(view.disabledAt).toBeUndefined();
    expect(auditLines(found.stderr)).toEqual([expect.objectContaining({ message: 'auth.account_viewed', action: 'find', userId: ada.userId, actor: { kind: 'operator', id: OPERATOR } })]);
    expect(found.stderr).not.toContain('@');

    const shown = await users(['show', ada.userId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^email\\s+${ada.email}$`, 'm'));
    expect(shown.stdout).toMatch(/^sessions\s+1 live, \d+ known devices$/m);
    expect(shown.stdout).toMatch(/^disabled\s+no$/m);
    const stored = (await fixture.users.getUserByEmail(ada.email))!.passwordHash;
    for (const output of [found.stdout, shown.stdout]) expect(output).not.toContain(stored.slice(0, 20));

    const missing = await users(['show', crypto.randomUUID()]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('user_not_found');

    // Three pages of two, each cursor leading to the next, every account once.
    await Promise.all([account(), account(), account(), account(), account()]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await users(['list', '--limit', '2', '--json', ...(cursor === undefined ? [] : ['--cursor', cursor])]);
      expect(page.code).toBe(0);
      const body = JSON.parse(page.stdout) as { users: Array<{ userId: string; email: string }>; cursor?: string };
      expect(body.users.length).toBeLessThanOrEqual(2);
      seen.push(...body.users.map((user) => user.userId));
      cursor = body.cursor;
    } while (cursor !== undefined);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(ada.userId);
    const table = await users(['list', '--limit', '100']);
    expect(table.stdout).toMatch(/^userId\s+email\s+created\s+verified\s+disabled$/m);
    expect(table.stdout).toContain(`${seen.length} accounts; the end of the table.`);
    expect((await users(['list', '--limit', '0'])).code).toBe(2);
  });

  it('disable ends every session at once and mails the owner; inventory counts it; enable restores logins, not sessions', async () => {
    const bob = await account();
    const before = mails().length;
    const disabled = await users(['disable', bob.userId]);
    expect(disabled).toMatchObject({ code: 0, stdout: `Account ${bob.userId} disabled: its sessions and devices ended, its logins refused.\n` });
    expect(auditLines(disabled.stderr).map((line) => line.message)).toContain('auth.account_disabled');
    await expect(authenticateSession(fixture.deps, bob.accessToken, new Date())).rejects.toMatchObject({ code: 'unauthenticated' });
    expect((await fixture.users.getUserByEmail(bob.email))?.disabledAt).toBeInstanceOf(Date);
    expect(mails().slice(before)).toEqual(['account_changed']);
    expect(JSON.parse((await users(['show', bob.userId, '--json'])).stdout)).toMatchObject({ disabledBy: OPERATOR, sessions: 0 });

    const inventory = await runPasslane(['inventory', '--json'], { env });
    expect(JSON.parse(inventory.stdout).disabled).toBe(1);
    expect((await runPasslane(['inventory'], { env })).stdout).toMatch(/^Disabled by an operator: 1 accounts/m);

    const enabled = await users(['enable', bob.userId, '--json']);
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toEqual({ userId: bob.userId, enabled: true });
    expect((await fixture.users.getUserByEmail(bob.email))?.disabledAt).toBeUndefined();
    await expect(authenticateSession(fixture.deps, bob.accessToken, new Date())).rejects.toMatchObject({ code: 'unauthenticated' });
    expect((await loginSession(fixture.deps, { email: bob.email, password: PASSWORD, sourceIp: '198.51.100.7' })).accessToken).toEqual(expect.any(String));
    expect(JSON.parse((await runPasslane(['inventory', '--json'], { env })).stdout).disabled).toBe(0);
  });

  it('end-sessions, remove-factor (a factor there and one not), send-reset: the owner mailed, no token printed', async () => {
    const carol = await account();
    const second = await loginSession(fixture.deps, { email: carol.email, password: PASSWORD, sourceIp: '198.51.100.8' });
    const ended = await users(['end-sessions', carol.userId, '--json']);
    expect(ended.code).toBe(0);
    expect(JSON.parse(ended.stdout)).toMatchObject({ userId: carol.userId, sessions: 2 });
    for (const token of [carol.accessToken, second.accessToken]) await expect(authenticateSession(fixture.deps, token, new Date())).rejects.toMatchObject({ code: 'unauthenticated' });

    // TOTP, enrolled by the owner from a fresh login.
    const { accessToken } = await loginSession(fixture.deps, { email: carol.email, password: PASSWORD, sourceIp: '198.51.100.7' });
    const enrolment = await asCaller(fixture.deps, accessToken, 'recent', (caller) => enrolTotp(fixture.deps, { caller }));
    await asCaller(fixture.deps, accessToken, 'recent', (caller) => confirmTotp(fixture.deps, { caller, code: totpCode(base32Bytes(enrolment.secret), Date.now()) }));
    expect(JSON.parse((await users(['show', carol.userId, '--json'])).stdout).factors).toMatchObject({ totp: true, recoveryCodes: expect.any(Number) });

    const before = mails().length;
    const removed = await users(['remove-factor', carol.userId, 'totp']);
    expect(removed).toMatchObject({ code: 0, stdout: `Account ${carol.userId}: totp removed; the owner was mailed.\n` });
    expect(auditLines(removed.stderr)).toEqual([expect.objectContaining({ message: 'auth.factor_removed_by_operator', factor: 'totp', removed: true, actor: { kind: 'operator', id: OPERATOR } })]);
    expect(JSON.parse((await users(['show', carol.userId, '--json'])).stdout).factors.totp).toBe(false);
    expect(mails().slice(before)).toEqual(['mfa_changed']);
    const again = await users(['remove-factor', carol.userId, 'passkey:no-such-credential', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ userId: carol.userId, factor: 'passkey:no-such-credential', removed: false });
    const wrong = await users(['remove-factor', carol.userId, 'sms']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('the factor is totp, recovery_codes, passkey:<credential id> (users show lists them) or all');

    const reset = await users(['send-reset', carol.userId]);
    expect(reset).toMatchObject({ code: 0, stdout: `Account ${carol.userId}: a reset link was mailed to the owner.\n` });
    expect(mails().at(-1)).toBe('password_reset');
    expect(reset.stdout + reset.stderr).not.toMatch(/token=|@/);
  });

  it('delete: refused without a terminal unless --yes, asked on a terminal (no keeps it, yes erases it)', async () => {
    const dave = await account();
    const refused = await users(['delete', dave.userId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not a terminal, so no one to confirm: add --yes to delete without asking. Nothing was deleted.');
    expect(await fixture.users.getUserByEmail(dave.email)).toBeDefined();

    const onTerminal = async (answer: string) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const [stdout, stderr] = [new PassThrough(), new PassThrough()];
      let [out, err] = ['', ''];
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        // The question asked: the operator answers.
        if (err.includes('Type yes to go on: ')) stdin.end(answer);
      });
      const code = await runUsersCommand(['delete', dave.userId], { stdin, stdout, stderr, env });
      return { code, stdout: out, stderr: err };
    };
    const kept = await onTerminal('no\n');
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain(`Delete account ${dave.userId} (${dave.email}, 1 live sessions) and everything of it? This cannot be undone.`);
    expect(kept.stderr).toContain('not confirmed; nothing was deleted.');
    expect(await fixture.users.getUserByEmail(dave.email)).toBeDefined();

    const erased = await onTerminal('yes\n');
    expect(erased.code).toBe(0);
    expect(erased.stdout).toBe(`Account ${dave.userId} deleted: every item of it is gone, and the address was mailed.\n`);
    expect(await fixture.users.getUserByEmail(dave.email)).toBeUndefined();
    await expect(authenticateSession(fixture.deps, dave.accessToken, new Date())).rejects.toMatchObject({ code: 'unauthenticated' });
    expect((await users(['show', dave.userId])).code).toBe(1);

    const erin = await account();
    const scripted = await users(['delete', erin.userId, '--yes', '--json']);
    expect(scripted.code).toBe(0);
    expect(JSON.parse(scripted.stdout)).toEqual({ userId: erin.userId, deleted: true });
    expect(auditLines(scripted.stderr).map((line) => line.message)).toContain('auth.account_deleted');
    expect(await fixture.users.getUserByEmail(erin.email)).toBeUndefined();
    expect(mails().at(-1)).toBe('account_changed');
    expect((await users(['delete', erin.userId, '--yes'])).code).toBe(1);
  });
});

describe('passlane users: what it refuses before touching a table', SPAWNING, () => {
  const env = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDUSERSCLI', AWS_SECRET_ACCESS_KEY: 'local', PASSLANE_TABLE: 'passlane-prod-users', PASSLANE_PEPPER_KEYS: '' };

  it('names the usage error and prints the usage (exit 2)', async () => {
    for (const [args, message] of [
      [[], 'users needs a subcommand'],
      [['frobnicate'], 'unknown subcommand frobnicate'],
      [['show'], 'users show takes one argument'],
      [['disable', 'a', '--yes'], '--yes is an option of users delete'],
      [['show', 'a', '--limit', '3'], '--cursor and --limit are options of users list'],
    ] as const) {
      const run = await runPasslane(['users', ...args], { env });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`passlane users: ${message}`);
      expect(run.stderr).toContain('usage: passlane users find EMAIL');
    }
  });

  it('passlane admin-key is a command of the bin: a key once, and the PASSLANE_ADMIN_KEYS entry holding its hash', async () => {
    const run = await runPasslane(['admin-key', 'ops-1'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^admin key \(give it to the operator; it is not shown again\): \S+\nPASSLANE_ADMIN_KEYS entry: ops-1:[0-9a-f]{64}\n$/);
    expect((await runPasslane(['admin-key', 'a b'], { env })).code).toBe(2);
  });

  it('against AWS\'s table: without the server\'s fingerprint key, and for a mail without SES, does nothing', async () => {
    const noKey = await runPasslane(['users', 'disable', 'some-id'], { env });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("PASSLANE_FINGERPRINT_KEY is not set: give the server's (or PASSLANE_FINGERPRINT_KEY_PARAMETER");
    const withKey = { ...env, PASSLANE_FINGERPRINT_KEY: encodeBase64Padded(new Uint8Array(32).fill(7)) };
    const outbox = await runPasslane(['users', 'send-reset', 'some-id'], { env: withKey });
    expect(outbox.code).toBe(2);
    expect(outbox.stderr).toContain('PASSLANE_MAIL_TRANSPORT is outbox (files on this machine): set PASSLANE_MAIL_TRANSPORT=ses');
  });
});
