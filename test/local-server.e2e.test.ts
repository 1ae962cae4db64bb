/**
 * `npm start` for real: the server script in a child process (embedded dynalite persisted in a
 * temp data dir), spoken to over HTTP only. Covers the whole contract path a developer uses, a
 * restart on the same data dir, and a clean SIGINT shutdown; what it says when it cannot start, and
 * its console: one line per request, the mails' links to its own port, a failed mail's cause.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killServers, startServer } from './support/local-server-process.js';

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe('local server (npm start)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'passlane-e2e-'));
  });

  // A failed test must not leave a server behind.
  afterEach(killServers);

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the contract, keeps accounts across a restart and stops cleanly on SIGINT', async () => {
    const email = `e2e-${randomUUID()}@example.test`;
    const password = 'e2e first passphrase';
    const newPassword = 'a brand new passphrase';

    const first = await startServer(dataDir);
    expect(first.output()).toContain(`curl -i -X POST ${first.url}/register`);

    const registered = await post(`${first.url}/register`, { email: ` ${email.toUpperCase()}`, password });
    expect(registered).toMatchObject({ status: 201, body: { userId: expect.any(String) } });

    const loggedIn = await post(`${first.url}/login`, { email, password });
    expect(loggedIn).toMatchObject({ status: 200, body: { tokenType: 'Bearer', expiresIn: expect.any(Number) } });

    // As an API Gateway JWT authorizer finds the keys: discovery document first, then its jwks_uri.
    // The issuer is the URL the server printed: nothing configured.
    const discovery = (await (await fetch(`${first.url}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    expect(discovery).toMatchObject({ issuer: first.url, jwks_uri: `${first.url}/.well-known/jwks.json` });
    expect(first.output()).toContain(`OAuth issuer: ${first.url} (discovery: ${first.url}/.well-known/oauth-authorization-server)`);
    const jwksResponse = await fetch(discovery.jwks_uri);
    expect(jwksResponse.status).toBe(200);
    expect(jwksResponse.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const jwks = (await jwksResponse.json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(loggedIn.body.accessToken, createLocalJWKSet(jwks), { issuer: first.url, audience: 'passlane-api' });
    expect(payload.sub).toBe(registered.body.userId);

    const changed = await post(`${first.url}/password`, { currentPassword: password, newPassword }, { authorization: `Bearer ${loggedIn.body.accessToken}` });
    expect(changed.status).toBe(204);
    expect((await post(`${first.url}/login`, { email, password })).status).toBe(401);
    expect((await post(`${first.url}/login`, { email, password: newPassword })).status).toBe(200);

    expect((await fetch(`${first.url}/nope`)).status).toBe(404);
    expect((await fetch(`${first.url}/login`)).status).toBe(405);

    expect(await first.interrupt()).toBe(0);

    // Same data dir: the account (dynalite files) and the signing key survive.
    const second = await startServer(dataDir);
    const again = await post(`${second.url}/login`, { email, password: newPassword });
    expect(again.status).toBe(200);
    const jwksAfter = (await (await fetch(`${second.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwksAfter).toEqual(jwks);
    await jwtVerify(again.body.accessToken, createLocalJWKSet(jwks), { issuer: second.url, audience: 'passlane-api' });
    expect(await second.interrupt()).toBe(0);

    // The logs: a readable line per request and per audit event, never the password or the email.
    const logs = first.output() + second.output();
    expect(logs).toMatch(/^\d\d:\d\d:\d\d auth\.login_succeeded userId=[0-9a-f-]{36}$/m);
    expect(logs).toMatch(/^\d\d:\d\d:\d\d POST \/login 401 \d+(\.\d)? ms$/m);
    for (const secret of [password, newPassword, email, loggedIn.body.accessToken]) expect(logs).not.toContain(secret);
  });
});

/** `npm start` until it exits by itself (a start that fails); killed if it hangs, which then fails the test. */
function startUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=passlane-source', '--import', 'tsx', 'packages/server/src/runtimes/node/local-server.ts'], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, PORT: '0', DYNAMODB_PORT: '0', DYNAMODB_ENDPOINT: '', NODE_NO_WARNINGS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('npm start says what went wrong, and what happened', () => {
  const dirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'passlane-start-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(killServers);
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('refuses a busy PORT or DYNAMODB_PORT, an unusable data directory or outbox, naming the setting', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const api = await startUntilExit({ PASSLANE_DATA_DIR: await newDataDir(), PORT: String(port) });
      expect(api.code).toBe(1);
      expect(api.output).toContain(`failed to start: PORT ${port}: 127.0.0.1:${port} is in use by another process`);
      const dynamo = await startUntilExit({ PASSLANE_DATA_DIR: await newDataDir(), DYNAMODB_PORT: String(port) });
      expect(dynamo.code).toBe(1);
      expect(dynamo.output).toContain(`failed to start: DYNAMODB_PORT ${port}: 127.0.0.1:${port} is in use by another process`);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }

    // Node's own recursive mkdir never returns on this path.
    const proc = await startUntilExit({ PASSLANE_DATA_DIR: '/proc/passlane-nope' });
    expect(proc).toMatchObject({ code: 1 });
    expect(proc.output).toContain('failed to start: PASSLANE_DATA_DIR /proc/passlane-nope cannot be created (ENOENT)');

    // An outbox that cannot be written fails the start, not each mail later.
    const dataDir = await newDataDir();
    await writeFile(join(dataDir, 'outbox'), 'a file where the outbox directory goes\n');
    const outbox = await startUntilExit({ PASSLANE_DATA_DIR: dataDir, PASSLANE_MAIL_TRANSPORT: 'outbox' });
    expect(outbox.code).toBe(1);
    expect(outbox.output).toContain(`failed to start: PASSLANE_DATA_DIR's outbox ${dataDir}/outbox cannot be written (ENOTDIR)`);
  });

  it('links the mails to its own port and pages; logs a failed mail with its cause and the outcome', async () => {
    const dataDir = await newDataDir();
    const server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox', PASSLANE_EMAIL_VERIFICATION: '' });
    const { url } = server;
    const port = new URL(url).port;
    expect(server.output()).toContain(`mail: ${dataDir}/outbox/*.eml`);
    expect(server.output()).toContain(`pages for the mailed links: http://localhost:${port}/reset-password, /verify-email, /sign-in, /approve-device, /undo-factor, /confirm-email-change, /undo-email-change`);
    const email = `mail-${randomUUID()}@example.test`;
    expect((await post(`${url}/register`, { email, password: 'a passphrase for mail' })).status).toBe(201);

    expect((await post(`${url}/password/reset`, { email })).status).toBe(202);
    expect(server.output()).toMatch(new RegExp(`password reset mail written to ${dataDir}/outbox/\\S+\\.eml; link: http://localhost:${port}/reset-password#token=`));
    expect(server.output()).toMatch(/ auth\.password_reset_requested outcome=sent /);
    const resetPage = await fetch(`${url}/reset-password`);
    expect(resetPage.status).toBe(200);
    expect(resetPage.headers.get('content-security-policy')).toContain("form-action 'none'");
    expect(await resetPage.text()).toContain('Choose a new password');

    // The outbox goes away under the running server: the answer stays 202, the log says why.
    await rm(join(dataDir, 'outbox'), { recursive: true });
    await writeFile(join(dataDir, 'outbox'), 'not a directory\n');
    expect((await post(`${url}/password/reset`, { email })).status).toBe(202);
    const output = server.output();
    expect(output).toMatch(
      new RegExp(`WARN mail not sent kind=password_reset code=ERR_MAIL_UNAVAILABLE reason=ENOTDIR error="mail could not be sent now: cannot write to the outbox ${dataDir}/outbox"`),
    );
    expect(output).toMatch(/ auth\.mail_failed mail=password_reset code=ERR_MAIL_UNAVAILABLE$/m);
    expect(output).toMatch(/ auth\.password_reset_requested outcome=mail_failed /);

    // A path no route serves is `unknown` in the request line: it could hold an email.
    expect((await fetch(`${url}/accounts/${email}`)).status).toBe(404);
    expect(server.output()).toMatch(/ GET unknown 404 /);
    expect(await server.interrupt()).toBe(0);
    expect(server.output()).not.toContain(email);
  });

  it('with PASSLANE_APP_URL, links to that app and serves no pages; with transport none, says the mail was not sent', async () => {
    const server = await startServer(await newDataDir(), { PASSLANE_APP_URL: 'http://localhost:5173', PASSLANE_MAIL_TRANSPORT: 'none', PASSLANE_EMAIL_VERIFICATION: '' });
    expect(server.output()).toContain('the mails link to your app, http://localhost:5173 (PASSLANE_APP_URL)');
    expect((await fetch(`${server.url}/reset-password`)).status).toBe(404);
    const email = `none-${randomUUID()}@example.test`;
    expect((await post(`${server.url}/register`, { email, password: 'a passphrase for none' })).status).toBe(201);
    expect((await post(`${server.url}/password/reset`, { email })).status).toBe(202);
    expect(server.output()).toMatch(/ mail not sent: PASSLANE_MAIL_TRANSPORT is none kind=password_reset$/m);
    expect(server.output()).toMatch(/ auth\.password_reset_requested outcome=not_sent /);
    expect(server.output()).not.toMatch(/outcome=sent/);
    expect(await server.interrupt()).toBe(0);
  });
});
