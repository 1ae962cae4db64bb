/**
 * `npm start`'s outbox: each mail an RFC 5322 `.eml` file (parsed back here by a small decoder
 * written for the test and, where python3 is installed, by Python's `email` package), one
 * console line with the file and the link, and the address in neither the line nor the name.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createAccountMail } from '../packages/server/src/mail/account-mail.js';
import { MailUnavailableError } from '../packages/server/src/mail/errors.js';
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

  it('throws MailUnavailableError when the outbox cannot be written', async () => {
    await writeFile(join(dataDir, 'outbox'), 'a file where the directory should be');
    await expect(outboxMail().passwordReset(ADDRESS, TOKEN, 3600)).rejects.toThrow(MailUnavailableError);
    expect(printed).toEqual([]);
  });
});

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
