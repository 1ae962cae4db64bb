/**
 * `npm start` for real: the server script in a child process (embedded dynalite persisted in a
 * temp data dir), spoken to over HTTP only. Covers the whole contract path a developer uses, a
 * restart on the same data dir, and a clean SIGINT shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const START_TIMEOUT_MS = 30_000;

interface RunningServer {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends SIGINT and resolves with the exit code (null if killed by a signal). */
  interrupt(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Like `npm start` (tsx src/local/server.ts), without npm in between so signals reach the server. */
async function startServer(dataDir: string): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/local/server.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      // Port 0: the OS picks free ports for the server and dynalite; the URL is read from stdout.
      PORT: '0',
      DYNAMODB_PORT: '0',
      DYNAMODB_ENDPOINT: '',
      PASSLANE_DATA_DIR: dataDir,
      PASSLANE_TABLE: 'passlane-e2e',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (running.delete(child), resolve(code))));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), START_TIMEOUT_MS);
    const check = (): void => {
      // The banner ends with the Ctrl-C hint; wait for all of it.
      const match = /listening on (http:\/\/\S+)[\s\S]*Ctrl-C to stop/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    interrupt: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

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

  afterEach(() => {
    // A failed test must not leave a server behind.
    for (const child of running) child.kill('SIGKILL');
  });

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
    const discovery = (await (await fetch(`${first.url}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    expect(discovery.jwks_uri).toBe(`${first.url}/.well-known/jwks.json`);
    const jwksResponse = await fetch(discovery.jwks_uri);
    expect(jwksResponse.status).toBe(200);
    expect(jwksResponse.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const jwks = (await jwksResponse.json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(loggedIn.body.accessToken, createLocalJWKSet(jwks), { issuer: 'passlane', audience: 'passlane-api' });
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
    await jwtVerify(again.body.accessToken, createLocalJWKSet(jwks), { issuer: 'passlane', audience: 'passlane-api' });
    expect(await second.interrupt()).toBe(0);

    // The logs are JSON lines with audit events, and never the password or the email.
    const logs = first.output() + second.output();
    expect(logs).toContain('"message":"auth.login_succeeded"');
    for (const secret of [password, newPassword, email, loggedIn.body.accessToken]) expect(logs).not.toContain(secret);
  });
});
