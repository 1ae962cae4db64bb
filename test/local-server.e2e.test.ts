/**
 * `npm start` for real: the server script in a child process (embedded dynalite persisted in a
 * temp data dir), spoken to over HTTP only. Covers the whole contract path a developer uses, a
 * restart on the same data dir, and a clean SIGINT shutdown.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
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
