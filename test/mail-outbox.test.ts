/**
 * `npm start`'s outbox: each mail an RFC 5322 `.eml` file (parsed back here by a small decoder
 * written for the test and, where python3 is installed, by Python's `email` package), one
 * console line with the file and the link, and the address in neither the line nor the name.
 * A failure is logged with its cause, checked at start where it can be (an outbox Deno may not
 * write), and `npm run start:deno` may write the outbox of any PASSLANE_DATA_DIR.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createAccountMail } from '../packages/server/src/mail/account-mail.js';
import { MailConfigError, MailUnavailableError } from '../packages/server/src/mail/errors.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { runPasslane } from './support/run-process.js';
import { renderPasswordResetMail } from '../packages/server/src/mail/templates.js';

const ADDRESS = 'ada@example.com';
const TOKEN = 'AbC_123-xyz';

let dataDir: string;
let printed: string[];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'passlane-outbox-'));
  printed = [];
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

function outboxMail(env: Record<string, string> = {}) {
  const config = readConfig({ PASSLANE_DATA_DIR: dataDir, PASSLANE_APP_URL: 'http://localhost:5173', ...env });
  return createAccountMail(config.mail, { print: (line) => printed.push(line) });
}

async function onlyFile(): Promise<string> {
  const files = await readdir(join(dataDir, 'outbox'));
  expect(files).toHaveLength(1);
  return join(dataDir, 'outbox', files[0]!);
}

describe('outbox sender', () => {
  it('writes a multipart/alternative .eml whose parts decode to the rendered mail, and prints the link', async () => {
    const serviceName = 'Zürich Konto ✓';
    await outboxMail({ PASSLANE_SERVICE_NAME: serviceName, PASSLANE_MAIL_FROM: 'Zürich Konto <konto@example.com>' }).passwordReset(ADDRESS, TOKEN, 3600);
    const file = await onlyFile();
    const link = `http://localhost:5173/reset-password#token=${TOKEN}`;
    const expected = renderPasswordResetMail({ to: ADDRESS, link, expiresInMinutes: 60, serviceName });

    const raw = await readFile(file, 'utf8');
    expect(raw).not.toMatch(/[^\r]\n/); // CRLF only
    for (const line of raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);

    const message = parseMessage(raw);
    expect(message.headers.from).toBe('Zürich Konto <konto@example.com>');
    expect(message.headers.to).toBe(ADDRESS);
    expect(message.headers.subject).toBe(expected.subject);
    expect(message.rawHeaders.subject).toMatch(/^=\?UTF-8\?B\?/); // not ASCII: encoded words
    expect(message.headers['mime-version']).toBe('1.0');
    expect(message.headers['message-id']).toMatch(/^<[0-9a-f-]{36}@example\.com>$/);
    expect(Math.abs(Date.parse(message.headers.date!) - Date.now())).toBeLessThan(60_000);
    expect(message.headers['content-type']).toMatch(/^multipart\/alternative; boundary="[^"]+"$/);
    expect(message.parts.map((part) => part.type)).toEqual(['text/plain; charset=utf-8', 'text/html; charset=utf-8']);
    expect(message.parts.map((part) => part.encoding)).toEqual(['quoted-printable', 'quoted-printable']);
    expect(message.parts[0]!.body).toBe(expected.text.replace(/\n/g, '\r\n'));
    expect(message.parts[1]!.body).toBe(expected.html.replace(/\n/g, '\r\n'));

    expect(printed).toEqual([`password reset mail written to ${file}; link: ${link}`]);
    expect(printed.join('\n')).not.toContain(ADDRESS);
    expect(file).not.toContain('ada');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('is read the same by Python\'s email package, where python3 is installed', async (context) => {
    if (spawnSync('python3', ['--version']).status !== 0) context.skip();
    const serviceName = 'Ünïcödé service with a subject long enough to need more than one encoded word';
    await outboxMail({ PASSLANE_SERVICE_NAME: serviceName, PASSLANE_MAIL_FROM: 'Ünïcödé <no-reply@example.com>' }).emailVerification(ADDRESS, TOKEN, 86_400);
    const file = await onlyFile();
    const script = `
import email, json, sys
from email import policy
m = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=policy.default)
print(json.dumps({
  'defects': [str(d) for d in m.defects] + [str(d) for p in m.walk() for d in p.defects],
  'from': str(m['From']), 'to': str(m['To']), 'subject': str(m['Subject']),
  'type': m.get_content_type(),
  'parts': [[p.get_content_type(), p.get_content().replace('\\r\\n', '\\n')] for p in m.iter_parts()],
}))`;
    const run = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const parsed = JSON.parse(run.stdout) as { defects: string[]; from: string; to: string; subject: string; type: string; parts: Array<[string, string]> };
    const link = `http://localhost:5173/verify-email#token=${TOKEN}`;
    expect(parsed.defects).toEqual([]);
    expect(parsed).toMatchObject({ from: 'Ünïcödé <no-reply@example.com>', to: ADDRESS, subject: `Confirm your email address for ${serviceName}`, type: 'multipart/alternative' });
    expect(parsed.parts.map(([type]) => type)).toEqual(['text/plain', 'text/html']);
    expect(parsed.parts[0]![1]).toContain(`\n${link}\n`);
    expect(parsed.parts[1]![1]).toContain(`<a href="${link}">`);
  });

  it('keeps each mail in its own file and prints the sign-in link of a registration attempt', async () => {
    const mail = outboxMail();
    await mail.registrationAttempt(ADDRESS);
    await mail.registrationAttempt(ADDRESS);
    const files = (await readdir(join(dataDir, 'outbox'))).sort();
    expect(files).toHaveLength(2);
    expect(files.every((name) => /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-registration_attempt-[0-9a-f]{8}\.eml$/.test(name))).toBe(true);
    expect(printed[0]).toMatch(/^registration attempt mail written to .*\.eml; link: http:\/\/localhost:5173\/sign-in$/);
  });

  it('throws MailUnavailableError when the outbox cannot be written, and logs why', async () => {
    await writeFile(join(dataDir, 'outbox'), 'a file where the directory should be');
    const warnings: unknown[] = [];
    const config = readConfig({ PASSLANE_DATA_DIR: dataDir, PASSLANE_APP_URL: 'http://localhost:5173' });
    const mail = createAccountMail(config.mail, { print: (line) => printed.push(line), log: { info: () => {}, warn: (message, fields) => warnings.push({ message, ...fields }) } });
    await expect(mail.passwordReset(ADDRESS, TOKEN, 3600)).rejects.toThrow(MailUnavailableError);
    expect(printed).toEqual([]);
    expect(warnings).toEqual([
      {
        message: 'mail not sent',
        kind: 'password_reset',
        code: 'ERR_MAIL_UNAVAILABLE',
        reason: 'ENOTDIR',
        error: `mail could not be sent now: cannot write to the outbox ${dataDir}/outbox`,
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(ADDRESS);
    // Checked at start (npm start, Deno and Bun await it): the setting is named, not a mail.
    const ready = mail.ready();
    await expect(ready).rejects.toThrow(MailConfigError);
    await expect(ready).rejects.toThrow(`PASSLANE_DATA_DIR's outbox ${dataDir}/outbox cannot be written (ENOTDIR)`);
  });

  it('says what became of each mail: sent to the outbox, not sent with transport none', async () => {
    const mail = outboxMail();
    await mail.ready();
    // The check writes and removes a file: nothing is left in the outbox.
    expect(await readdir(join(dataDir, 'outbox'))).toEqual([]);
    expect(await mail.passwordReset(ADDRESS, TOKEN, 3600)).toBe('sent');
    const none = createAccountMail(readConfig({ PASSLANE_MAIL_TRANSPORT: 'none' }).mail, { log: { info: () => {} } });
    await none.ready();
    expect(await none.passwordReset(ADDRESS, TOKEN, 3600)).toBe('not_sent');
    expect(await none.registrationAttempt(ADDRESS)).toBe('not_sent');
  });
});

describe('npm run start:deno', () => {
  const root = join(import.meta.dirname, '..');
  let dynamo: RunningDynamoDb;
  let endpoint: string;
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    dynamo = await startDynalite();
    endpoint = dynamo.endpoint;
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await dynamo?.stop();
  });

  /** The script as npm runs it (sh, node_modules/.bin on PATH); resolves at the listening line or at exit. */
  function startDeno(script: string, env: Record<string, string>): Promise<{ url?: string; code?: number | null; output: () => string; stop: () => void }> {
    const child = spawn('sh', ['-c', script], {
      cwd: root,
      env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`, PORT: '0', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    let output = '';
    const stop = () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    };
    return new Promise((resolve, reject) => {
      const check = () => {
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (url) resolve({ url, output: () => output, stop });
      };
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => ((output += chunk), check()));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.on('error', reject);
      child.on('close', (code) => (children.delete(child), resolve({ code, output: () => output, stop })));
    });
  }

  it('writes the outbox under another PASSLANE_DATA_DIR, and refuses to start where it may not write it', async () => {
    const script = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start:deno']!;
    const table = `deno-${randomUUID()}`;
    const client = new DynamoDBClient(dynamoDbClientConfig({ endpoint }));
    await ensureTable(client, table);
    client.destroy();
    const env = { PASSLANE_DATA_DIR: dataDir, PASSLANE_TABLE: table, DYNAMODB_ENDPOINT: endpoint, PASSLANE_MAIL_TRANSPORT: 'outbox', PASSLANE_APP_URL: '' };

    const deno = await startDeno(script, env);
    try {
      expect(deno.url, deno.output()).toBeDefined();
      const post = (path: string, body: unknown) => fetch(`${deno.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/register', { email: ADDRESS, password: 'a passphrase for deno' })).status).toBe(201);
      expect((await post('/password/reset', { email: ADDRESS })).status).toBe(202);
      const files = await readdir(join(dataDir, 'outbox'));
      expect(files.filter((name) => /-password_reset-[0-9a-f]{8}\.eml$/.test(name))).toHaveLength(1);
      expect(deno.output()).toMatch(/password reset mail written to \S+; link: http:\/\/localhost:\d+\/reset-password#token=/);
    } finally {
      deno.stop();
    }

    // Write access elsewhere only (the keys given, so only the outbox needs writing): the start fails, naming it.
    const elsewhere = await mkdtemp(join(tmpdir(), 'passlane-deno-elsewhere-'));
    try {
      const keys = Object.fromEntries([...(await keygenLines())].map(([name, value]) => [name, value]));
      const refused = await startDeno(script.replace('"${PASSLANE_DATA_DIR:-.data}"', elsewhere), { ...env, PASSLANE_DATA_DIR: join(dataDir, 'other'), ...keys });
      expect(refused.url, refused.output()).toBeUndefined();
      expect(refused.code).not.toBe(0);
      expect(refused.output()).toContain(`PASSLANE_DATA_DIR's outbox ${join(dataDir, 'other')}/outbox cannot be written (NotCapable)`);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

/** `passlane keygen`'s lines, as name and value. */
async function keygenLines(): Promise<Map<string, string>> {
  const run = await runPasslane(['keygen']);
  expect(run.code).toBe(0);
  return new Map([...run.stdout.matchAll(/^(PASSLANE_[A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1]!, match[2]!]));
}

interface ParsedMessage {
  rawHeaders: Record<string, string>;
  headers: Record<string, string>;
  parts: Array<{ type: string; encoding: string; body: string }>;
}

/** Enough of RFC 5322 and MIME for this test: unfolding, RFC 2047 B words, one multipart level, quoted-printable. */
function parseMessage(raw: string): ParsedMessage {
  const { headers: rawHeaders, body } = splitEntity(raw);
  const headers = Object.fromEntries(Object.entries(rawHeaders).map(([name, value]) => [name, decodeWords(value)]));
  const boundary = /boundary="([^"]+)"/.exec(headers['content-type'] ?? '')?.[1];
  if (boundary === undefined) throw new Error('no boundary');
  const sections = body.split(`--${boundary}`);
  expect(sections.at(-1)).toBe('--\r\n'); // the closing delimiter ends the message
  const parts = sections.slice(1, -1).map((section) => {
    const part = splitEntity(section.replace(/^\r\n/, '').replace(/\r\n$/, ''));
    return { type: part.headers['content-type'] ?? '', encoding: part.headers['content-transfer-encoding'] ?? '', body: decodeQuotedPrintable(part.body) };
  });
  return { rawHeaders, headers, parts };
}

function splitEntity(text: string): { headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end).replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: text.slice(end + 4) };
}

/** A run of encoded words is one text: the white space between them goes (RFC 2047, 6.2). */
function decodeWords(value: string): string {
  return value.replace(/(?:=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=\s*)+/gi, (run) => {
    const bytes = [...run.matchAll(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/gi)].map((word) => Buffer.from(word[1]!, 'base64'));
    return Buffer.concat(bytes).toString('utf8') + (/\s*$/.exec(run)?.[0] ?? '');
  });
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const unwrapped = text.replace(/=\r\n/g, '');
  for (let i = 0; i < unwrapped.length; i++) {
    const char = unwrapped[i]!;
    if (char === '=') {
      bytes.push(parseInt(unwrapped.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(char.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}
