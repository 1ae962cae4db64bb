/**
 * Password reset and email verification end to end on `npm start`, over HTTP only, mail through
 * the outbox as a developer reads it: each mail an `.eml` file under `<PASSLANE_DATA_DIR>/outbox/`,
 * decoded here from its MIME parts, its link followed as the app would (the token is the
 * fragment). Issue 12's whole flow: request, read the mail, confirm, old password refused, new
 * one accepted, every old refresh token dead; identical answers for known and unknown emails;
 * single use and racing confirms; registration that tells strangers nothing, and logins that
 * wait for a verified email.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killServers, startServer, type RunningServer } from './support/local-server-process.js';

const APP_URL = 'http://localhost:5173';
const PASSWORD = 'e2e first passphrase';
const RESET_PASSWORD = 'a passphrase from the reset link';
const RACED_PASSWORD = 'the passphrase that won the race';
const TOKEN = /^[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;
/** The outbox, whatever the shell running the tests has set (blank counts as unset). */
const OUTBOX: Record<string, string> = {
  PASSLANE_MAIL_TRANSPORT: 'outbox',
  PASSLANE_APP_URL: APP_URL,
  PASSLANE_MAIL_FROM: '',
  PASSLANE_MAIL_TEMPLATE_DIR: '',
  PASSLANE_EMAIL_VERIFICATION: '',
  PASSLANE_REQUIRE_VERIFIED_EMAIL: '',
};

interface Answer {
  status: number;
  headers: Headers;
  /** The body as sent, for comparing answers byte for byte. */
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
  body: any;
}

async function send(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}
const post = (url: string, body?: unknown, headers?: Record<string, string>) => send(url, 'POST', body, headers);
/** The API's `error.code`, or RFC 6749's flat `error` (POST /token). */
const errorCode = (answer: Answer): unknown => (typeof answer.body?.error === 'string' ? answer.body.error : answer.body?.error?.code);

// ---- the outbox, read as a mail client would ----

interface Mail {
  file: string;
  kind: string;
  headers: Record<string, string>;
  text: string;
  html: string;
}

/** The outbox's `.eml` files, oldest first (the names start with the time), decoded. */
async function readOutbox(dataDir: string): Promise<Mail[]> {
  const dir = join(dataDir, 'outbox');
  const files = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.eml')).sort();
  return Promise.all(
    files.map(async (name) => {
      const file = join(dir, name);
      const kind = /-(password_reset|email_verification|registration_attempt)-[0-9a-f]{8}\.eml$/.exec(name)?.[1] ?? `unknown file name ${name}`;
      return { file, kind, ...parseMessage(await readFile(file, 'utf8')) };
    }),
  );
}

/** An RFC 5322 message of multipart/alternative: its headers (encoded words decoded) and its text and HTML parts. */
function parseMessage(raw: string): Pick<Mail, 'headers' | 'text' | 'html'> {
  const message = splitEntity(raw);
  const headers = Object.fromEntries(Object.entries(message.headers).map(([name, value]) => [name, decodeWords(value)]));
  const boundary = /boundary="([^"]+)"/.exec(headers['content-type'] ?? '')?.[1];
  if (boundary === undefined) throw new Error(`not multipart: ${headers['content-type']}`);
  const parts = message.body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((section) => splitEntity(section.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  const part = (type: string) => {
    const found = parts.find((candidate) => candidate.headers['content-type']?.startsWith(type));
    if (found === undefined) throw new Error(`no ${type} part`);
    const charset = /charset="?([\w-]+)/i.exec(found.headers['content-type']!)?.[1]?.toLowerCase();
    if (charset !== 'utf-8') throw new Error(`${type} is ${charset}, not UTF-8`);
    return decodeBody(found.body, found.headers['content-transfer-encoding'] ?? '7bit');
  };
  return { headers, text: part('text/plain'), html: part('text/html') };
}

function splitEntity(text: string): { headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  // Folded lines continue the header before them.
  for (const line of text.slice(0, end).replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: text.slice(end + 4) };
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable': {
      const bytes: number[] = [];
      const unwrapped = body.replace(/=\r\n/g, '');
      for (let i = 0; i < unwrapped.length; i++) {
        if (unwrapped[i] === '=') {
          bytes.push(parseInt(unwrapped.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(unwrapped.charCodeAt(i));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case '7bit':
    case '8bit':
      return body;
    default:
      throw new Error(`unknown Content-Transfer-Encoding ${encoding}`);
  }
}

/** RFC 2047 `=?UTF-8?B?...?=` words (what the outbox writes for non-ASCII subjects and names). */
function decodeWords(value: string): string {
  return value.replace(/(?:=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=\s*)+/gi, (run) => {
    const bytes = [...run.matchAll(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/gi)].map((word) => Buffer.from(word[1]!, 'base64'));
    return Buffer.concat(bytes).toString('utf8') + (/\s*$/.exec(run)?.[0] ?? '');
  });
}

/**
 * What the app does with a mailed link: `<app><page>#token=<token>`, the token read from the
 * fragment. The text and the HTML part must carry the same link.
 */
function tokenOf(mail: Mail, page: string): string {
  const link = new RegExp(`${APP_URL}${page}#token=([^\\s"<&]+)`);
  const token = link.exec(mail.text)?.[1];
  expect(token, `a ${page} link in the text part of ${mail.file}`).toMatch(TOKEN);
  expect(mail.html).toContain(`${APP_URL}${page}#token=${token}`);
  return token!;
}

describe('password reset and email verification on npm start, mail through the outbox', () => {
  const dataDirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'passlane-recovery-e2e-'));
    dataDirs.push(dir);
    return dir;
  };
  let server: RunningServer | undefined;

  // A failed test must not leave a server behind.
  afterEach(killServers);

  afterAll(async () => {
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('resets a password: request, read the .eml, confirm; the old password and every earlier refresh token are dead', async () => {
    const dataDir = await newDataDir();
    server = await startServer(dataDir, OUTBOX);
    const { url } = server;
    const email = `reset-${randomUUID()}@example.test`;
    const unknown = `nobody-${randomUUID()}@example.test`;

    expect((await post(`${url}/register`, { email, password: PASSWORD })).status).toBe(201);
    // Two devices; the first refreshes once, so there is a spent and a live token of it.
    const first = await post(`${url}/login`, { email, password: PASSWORD });
    const second = await post(`${url}/login`, { email, password: PASSWORD });
    expect([first.status, second.status]).toEqual([200, 200]);
    const rotated = await post(`${url}/token`, { grant_type: 'refresh_token', refresh_token: first.body.refreshToken });
    expect(rotated.status).toBe(200);
    const refreshTokens = [first.body.refreshToken, rotated.body.refresh_token, second.body.refreshToken];

    // The account's email and an unknown one: the same status, headers that matter and body, byte for byte.
    const known = await post(`${url}/password/reset`, { email: ` ${email.toUpperCase()} ` });
    const nobody = await post(`${url}/password/reset`, { email: unknown });
    expect(known.status).toBe(202);
    expect(known.body).toEqual({ status: 'accepted' });
    expect(nobody.status).toBe(known.status);
    expect(nobody.text).toBe(known.text);
    for (const header of ['content-type', 'cache-control']) expect(nobody.headers.get(header), header).toBe(known.headers.get(header));

    // One mail, to the account only; a file only its owner can read.
    const mails = await readOutbox(dataDir);
    expect(mails.map((mail) => [mail.kind, mail.headers.to])).toEqual([['password_reset', email]]);
    const [mail] = mails;
    expect((await stat(mail!.file)).mode & 0o777).toBe(0o600);
    expect(mail!.headers['mime-version']).toBe('1.0');
    expect(mail!.headers.subject).toBeTruthy();
    expect(mail!.headers.subject).not.toContain('#token=');
    for (const secret of [PASSWORD, RESET_PASSWORD]) expect(mail!.text + mail!.html).not.toContain(secret);
    const token = tokenOf(mail!, '/reset-password');
    // The console names the file and the link, never the address.
    expect(server.output()).toContain(`password reset mail written to ${mail!.file}; link: ${APP_URL}/reset-password#token=${token}`);

    // Another secret for the same account (the first character after the dot: all of its bits count).
    const wrongSecret = `${token.slice(0, 17)}${token[17] === 'A' ? 'B' : 'A'}${token.slice(18)}`;
    expect(await post(`${url}/password/reset/confirm`, { token: wrongSecret, newPassword: RESET_PASSWORD })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_token' } },
    });
    expect((await post(`${url}/password/reset/confirm`, { token, newPassword: RESET_PASSWORD })).status).toBe(204);
    // Single use.
    expect(await post(`${url}/password/reset/confirm`, { token, newPassword: 'yet another passphrase' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_token' } },
    });

    expect(await post(`${url}/login`, { email, password: PASSWORD })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    const afterReset = await post(`${url}/login`, { email, password: RESET_PASSWORD });
    expect(afterReset.status).toBe(200);
    // The link proved the mailbox.
    expect(decodeJwt(afterReset.body.accessToken).email_verified).toBe(true);
    // Every session from before ended: each of its refresh tokens, spent or live, and its access tokens.
    for (const refreshToken of refreshTokens) {
      const answer = await post(`${url}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken });
      expect([answer.status, errorCode(answer)], `refresh token ${refreshTokens.indexOf(refreshToken)}`).toEqual([400, 'invalid_grant']);
    }
    for (const accessToken of [first.body.accessToken, second.body.accessToken]) {
      expect((await send(`${url}/sessions`, 'GET', undefined, { authorization: `Bearer ${accessToken}` })).status).toBe(401);
    }
    // The session started after the reset is the account's only one.
    const listed = await send(`${url}/sessions`, 'GET', undefined, { authorization: `Bearer ${afterReset.body.accessToken}` });
    expect(listed.body.sessions.map((session: { current: boolean }) => session.current)).toEqual([true]);

    // Two racing confirms of one link: exactly one sets its password.
    expect((await post(`${url}/password/reset`, { email })).status).toBe(202);
    const raced = tokenOf((await readOutbox(dataDir)).at(-1)!, '/reset-password');
    expect(raced).not.toBe(token);
    const answers = await Promise.all(
      ['first', 'second'].map((who) => post(`${url}/password/reset/confirm`, { token: raced, newPassword: `${RACED_PASSWORD} ${who}` })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 400]);
    const loser = answers.find((answer) => answer.status === 400)!;
    expect(errorCode(loser)).toBe('invalid_token');
    const winner = answers.findIndex((answer) => answer.status === 204) === 0 ? 'first' : 'second';
    expect((await post(`${url}/login`, { email, password: `${RACED_PASSWORD} ${winner}` })).status).toBe(200);
    expect((await post(`${url}/login`, { email, password: `${RACED_PASSWORD} ${winner === 'first' ? 'second' : 'first'}` })).status).toBe(401);
    expect((await post(`${url}/login`, { email, password: RESET_PASSWORD })).status).toBe(401);

    expect(await server.interrupt()).toBe(0);
    // The address and the passwords never reach the console (the link does: this is a developer's machine).
    for (const secret of [email, unknown, PASSWORD, RESET_PASSWORD, RACED_PASSWORD]) expect(server.output()).not.toContain(secret);
  });

  it('with email verification: registration answers alike for new and taken emails; login waits for the link', async () => {
    const dataDir = await newDataDir();
    server = await startServer(dataDir, {
      ...OUTBOX,
      PASSLANE_EMAIL_VERIFICATION: 'true',
      PASSLANE_REQUIRE_VERIFIED_EMAIL: 'true',
    });
    const { url } = server;
    const email = `verify-${randomUUID()}@example.test`;
    const strangersPassword = 'a stranger tries this passphrase';

    const created = await post(`${url}/register`, { email, password: PASSWORD });
    const taken = await post(`${url}/register`, { email, password: strangersPassword });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({ status: 'accepted' });
    expect(taken.status).toBe(created.status);
    expect(taken.text).toBe(created.text);

    // The mailbox learns which it was: a verification link, then "someone tried to register".
    const mails = await readOutbox(dataDir);
    expect(mails.map((mail) => [mail.kind, mail.headers.to]).sort()).toEqual([
      ['email_verification', email],
      ['registration_attempt', email],
    ]);
    const attempt = mails.find((mail) => mail.kind === 'registration_attempt')!;
    expect(attempt.text + attempt.html).not.toContain('#token=');
    expect(attempt.text).toContain(`${APP_URL}/sign-in`);
    const firstLink = tokenOf(mails.find((mail) => mail.kind === 'email_verification')!, '/verify-email');

    // The stranger's registration changed nothing; a wrong password stays 401, the right one is 403 and mails a new link.
    expect(await post(`${url}/login`, { email, password: strangersPassword })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    expect(await post(`${url}/login`, { email, password: PASSWORD })).toMatchObject({ status: 403, body: { error: { code: 'email_not_verified' } } });
    const newest = (await readOutbox(dataDir)).filter((mail) => mail.kind === 'email_verification');
    expect(newest).toHaveLength(2);
    const link = tokenOf(newest.at(-1)!, '/verify-email');
    expect(link).not.toBe(firstLink);

    // The newer link replaced the first; it works once.
    expect(await post(`${url}/email/verify`, { token: firstLink })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect((await post(`${url}/email/verify`, { token: link })).status).toBe(204);
    expect(await post(`${url}/email/verify`, { token: link })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });

    const loggedIn = await post(`${url}/login`, { email, password: PASSWORD });
    expect(loggedIn.status).toBe(200);
    expect(decodeJwt(loggedIn.body.accessToken).email_verified).toBe(true);
    // Verified: a resend answers the same and sends nothing.
    expect((await post(`${url}/email/verify/resend`, undefined, { authorization: `Bearer ${loggedIn.body.accessToken}` })).status).toBe(202);
    expect((await readOutbox(dataDir)).length).toBe(3);

    expect(await server.interrupt()).toBe(0);
    for (const secret of [email, PASSWORD, strangersPassword]) expect(server.output()).not.toContain(secret);
  });
});
