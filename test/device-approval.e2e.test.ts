/**
 * Device approval end to end on `npm start`, over HTTP only, mail through the outbox as a
 * developer reads it (the link on the console). Issue 33, item 5: an email sprayed over its
 * account-wide ceiling (a small one here, PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING), a fresh client
 * refused with 429, its request for an approval, the mailed link used with that client's secret,
 * and its login with the right password; another client cannot use the link, the link works
 * once, and an unknown email is answered the same.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killServers, startServer } from './support/local-server-process.js';

const PASSWORD = 'e2e passphrase of the owner';
const CEILING = 3;
const CLIENT_SECRET = /^[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/;

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
  body: any;
}

describe('device approval on npm start', () => {
  const dirs: string[] = [];
  afterEach(killServers);
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("lets the owner's new client in past the ceiling a stranger ran up, once, and no other client", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-approval-'));
    dirs.push(dataDir);
    const server = await startServer(dataDir, {
      PASSLANE_MAIL_TRANSPORT: 'outbox',
      PASSLANE_APP_URL: '',
      PASSLANE_MAIL_TEMPLATE_DIR: '',
      PASSLANE_EMAIL_VERIFICATION: '',
      PASSLANE_REQUIRE_VERIFIED_EMAIL: '',
      PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: String(CEILING),
    });
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    };
    /** The newest approval link's token on the console: `device approval mail written to <file>; link: <url>`. */
    const mailedTokens = () => [...server.output().matchAll(/device approval mail written to \S+; link: \S+#token=(\S+)/g)].map((match) => decodeURIComponent(match[1]!));

    const email = `owner-${randomUUID()}@example.test`;
    expect((await post('/register', { email, password: PASSWORD })).status).toBe(201);
    // The stranger's spray: the email's run reaches its ceiling.
    for (let i = 0; i < CEILING; i++) expect((await post('/login', { email, password: 'a stranger guessing' })).status).toBe(401);
    // The owner on a new client, with the right password: held like everyone without a device.
    const held = await post('/login', { email, password: PASSWORD });
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toMatch(/^\d+$/);

    // The new client asks; an unknown email is answered alike.
    const asked = await post('/devices/approval', { email });
    const unknown = await post('/devices/approval', { email: `nobody-${randomUUID()}@example.test` });
    for (const answer of [asked, unknown]) {
      expect(answer.status).toBe(202);
      expect(Object.keys(answer.body).sort()).toEqual(['clientSecret', 'expiresIn', 'status']);
      expect(answer.body).toMatchObject({ status: 'accepted', clientSecret: expect.stringMatching(CLIENT_SECRET), expiresIn: 900 });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('set-cookie')).toMatch(/^__Host-passlane-approval-[0-9a-f]{16}=[0-9a-f]{16}\.[A-Za-z0-9_-]{43}; Max-Age=900; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    }
    expect(asked.body.clientSecret).not.toBe(unknown.body.clientSecret);
    // One mail: the account's.
    const tokens = mailedTokens();
    expect(tokens).toHaveLength(1);
    const token = tokens[0]!;
    const clientSecret: string = asked.body.clientSecret;

    // Another client (no secret, another account's secret, the secret as the token) cannot use the link.
    for (const other of [{ token }, { token, clientSecret: unknown.body.clientSecret }, { token: clientSecret, clientSecret }]) {
      expect(await post('/devices/approval/confirm', other)).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    }
    // The asking client, its secret as the cookie a browser sends back: a known device.
    const cookie = asked.headers.get('set-cookie')!.split(';')[0]!;
    const approved = await post('/devices/approval/confirm', { token }, { cookie });
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ deviceToken: expect.stringMatching(/^[0-9a-f]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/), deviceExpiresIn: 15_552_000 });
    expect(approved.headers.get('set-cookie')).toBe(
      `__Host-passlane-device-${approved.body.deviceToken.split('.')[0]}=${approved.body.deviceToken}; Max-Age=15552000; Path=/; HttpOnly; Secure; SameSite=Strict`,
    );
    // Once.
    expect(await post('/devices/approval/confirm', { token, clientSecret })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });

    // Its next login is counted per device: past the ceiling with the right password (a client
    // keeping no cookies sends the device token in the body).
    const deviceToken: string = approved.body.deviceToken;
    const inside = await post('/login', { email, password: PASSWORD, deviceToken });
    expect(inside.status).toBe(200);
    expect(inside.body.deviceToken).toBe(deviceToken);

    expect(await server.interrupt()).toBe(0);
    // The console prints the mailed link (a developer's machine), never the address, a client
    // secret or a device token.
    for (const secret of [email, clientSecret, clientSecret.split('.')[1]!, deviceToken, PASSWORD]) expect(server.output()).not.toContain(secret);
    expect(server.output()).toMatch(/ POST \/devices\/approval 202 /);
    expect(server.output()).toMatch(/ POST \/devices\/approval\/confirm 200 /);
  });
});
