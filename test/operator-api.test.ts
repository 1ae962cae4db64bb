/**
 * The operator API (issue 35) on the Node host (serveOnNode, over HTTP) with a real table on both
 * DynamoDB servers: off without PASSLANE_ADMIN_KEYS, refused without a right admin key, two keys
 * at once (rotation), every action audited with the key's id and mailed to the owner where it
 * changes their access; DELETE /account for the owner; the IAM principal's way in (Lambda).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor, AuditEvent } from '../packages/server/src/accounts/audit-events.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readAdminConfig } from '../packages/server/src/config/admin-config.js';
import { adminKeyHash, matchAdminKey, newAdminKey } from '../packages/server/src/features/operators/admin-keys.js';
import { iamPrincipalAuthentication } from '../packages/server/src/features/operators/operator-authentication.js';
import { loginSession } from './support/login-results.js';
import { register } from '../packages/server/src/features/register/register.js';
import { serveOnNode, type NodeHost } from '../packages/server/src/runtimes/node/node-server.js';
import { lambdaOperatorDependencies, servedApi } from '../packages/server/src/wiring/operator-api.js';
import { OPERATOR_ROUTES } from '../packages/server/src/features/operators/operator-routes.js';
import { lambdaHandler } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { httpApiEvent } from './support/http-api-event.js';
import { lambdaContext } from './support/lambda-context.js';
import { runAdminKeyCommand } from '../packages/server/src/cli/commands/admin-key.js';
import { PassThrough } from 'node:stream';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';

const PASSWORD = 'correct horse battery staple';
const quiet = () => {};
const log = { info: quiet, warn: quiet, error: quiet, safeError: (error: unknown) => (error instanceof Error ? error.name : typeof error) };

describe('admin keys', () => {
  it('are made with the line to store, which holds only the hash', () => {
    const { key, stored } = newAdminKey('support-2026');
    expect(key).toMatch(/^passlane_admin_[A-Za-z0-9_-]{43}$/);
    expect(stored).toBe(`support-2026:${adminKeyHash(key)}`);
    expect(stored).not.toContain(key);
    expect(readAdminConfig({ PASSLANE_ADMIN_KEYS: stored })).toEqual({ adminKeys: [{ id: 'support-2026', sha256: adminKeyHash(key) }] });
    expect(() => newAdminKey('no spaces')).toThrow(RangeError);
  });

  it('passlane admin-key <id> prints a key once and the line that stores its hash; a bad id is a usage error', async () => {
    const capture = () => {
      const stream = new PassThrough();
      const chunks: string[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
      return { stream, text: () => chunks.join('') };
    };
    const out = capture();
    const err = capture();
    expect(await runAdminKeyCommand(['support'], { stdout: out.stream, stderr: err.stream, env: {} })).toBe(0);
    const key = /admin key .*: (passlane_admin_\S+)/.exec(out.text())![1]!;
    const line = /PASSLANE_ADMIN_KEYS entry: (\S+)/.exec(out.text())![1]!;
    expect(matchAdminKey(readAdminConfig({ PASSLANE_ADMIN_KEYS: line })!.adminKeys, key)?.id).toBe('support');
    expect(await runAdminKeyCommand(['two words'], { stdout: out.stream, stderr: err.stream, env: {} })).toBe(2);
    expect(await runAdminKeyCommand([], { stdout: out.stream, stderr: err.stream, env: {} })).toBe(2);
    expect(err.text()).toMatch(/usage: passlane admin-key <id>/);
  });

  it('match only the key whose hash is stored', () => {
    const a = newAdminKey('a');
    const b = newAdminKey('b');
    const { adminKeys } = readAdminConfig({ PASSLANE_ADMIN_KEYS: `${a.stored}, ${b.stored}` })!;
    expect(matchAdminKey(adminKeys, b.key)?.id).toBe('b');
    expect(matchAdminKey(adminKeys, a.key)?.id).toBe('a');
    expect(matchAdminKey(adminKeys, `${a.key}x`)).toBeUndefined();
    expect(matchAdminKey(adminKeys, adminKeyHash(a.key))).toBeUndefined();
  });

  it('refuses a malformed setting with a clear error that never echoes a pasted key', () => {
    const { key } = newAdminKey('x');
    expect(readAdminConfig({})).toBeUndefined();
    const failure = (value: string) => {
      try {
        readAdminConfig({ PASSLANE_ADMIN_KEYS: value });
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('accepted');
    };
    for (const value of [key, `x:${key}`, 'x:abc', `bad id:${'0'.repeat(64)}`, `x:${'0'.repeat(64)},x:${'1'.repeat(64)}`]) {
      const error = failure(value);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.variable).toBe('PASSLANE_ADMIN_KEYS');
      expect(error.message).not.toContain(key);
    }
    expect(failure(`x:${'0'.repeat(64)},x:${'1'.repeat(64)}`).message).toMatch(/twice/);
  });

  it('on Lambda: the IAM principal API Gateway authorized is the operator; none is refused, whatever token comes with it', async () => {
    const iam = iamPrincipalAuthentication();
    expect(await iam.identify({ bearer: undefined, principal: 'arn:aws:iam::123456789012:user/support' })).toEqual({ kind: 'operator', id: 'arn:aws:iam::123456789012:user/support' });
    await expect(iam.identify({ bearer: 'anything', principal: undefined })).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

describe.each(dynamoDbServers)('the operator API on the Node host, on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function hosted(adminKeys: string | undefined) {
    const fixture = await createAuthFixture(server.endpoint);
    const operators = readAdminConfig({ PASSLANE_ADMIN_KEYS: adminKeys });
    const { routes, services } = servedApi({ ...(operators && { operators }) }, fixture.deps);
    const host: NodeHost = await serveOnNode(routes, services, { port: 0, host: '127.0.0.1', log });
    const call = async (method: string, path: string, key?: string) => {
      const response = await fetch(`${host.url}${path}`, { method, headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
    };
    const email = uniqueEmail();
    const registered = await register(fixture.deps, { email, password: PASSWORD });
    if (!('userId' in registered)) throw new Error('registration without verification answers the user id');
    const signIn = () => loginSession(fixture.deps, { email, password: PASSWORD, sourceIp: '198.51.100.7' });
    return { ...fixture, host, call, email, userId: registered.userId, signIn, close: async () => (await host.close(), await fixture.dispose()) };
  }

  const actorsOf = (events: AuditEvent[]) => events.filter((event) => 'actor' in event && event.actor !== undefined).map((event) => [event.type, (event as { actor: Actor }).actor]);

  it('is not served without PASSLANE_ADMIN_KEYS: its paths are unknown', async () => {
    const api = await hosted(undefined);
    expect(await api.call('GET', `/admin/users/${api.userId}`, 'anything')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await api.call('POST', `/admin/users/${api.userId}/disable`)).toMatchObject({ status: 404 });
    await api.close();
  });

  it('refuses a missing or wrong key before anything; two keys work at once, and a removed one stops', async () => {
    const old = newAdminKey('old');
    const next = newAdminKey('next');
    const api = await hosted(`${old.stored},${next.stored}`);
    expect(await api.call('GET', `/admin/users/${api.userId}`)).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    // One character changed (to one it is not: a fixed replacement would leave a key ending in it whole).
    const wrongKey = `${next.key.slice(0, -1)}${next.key.endsWith('A') ? 'B' : 'A'}`;
    expect(await api.call('GET', `/admin/users/${api.userId}`, wrongKey)).toMatchObject({ status: 401 });
    expect(await api.call('POST', `/admin/users/${api.userId}/disable`, adminKeyHash(next.key))).toMatchObject({ status: 401 });
    expect((await api.users.getUserById(api.userId))?.disabledAt).toBeUndefined();
    expect(await api.call('GET', `/admin/users/${api.userId}`, old.key)).toMatchObject({ status: 200, body: { userId: api.userId, email: api.email } });
    expect(await api.call('GET', `/admin/users/${api.userId}`, next.key)).toMatchObject({ status: 200, body: { userId: api.userId } });
    await api.close();
    // Rotated: the old line removed from the setting.
    const rotated = await hosted(next.stored);
    expect(await rotated.call('GET', `/admin/users/${rotated.userId}`, old.key)).toMatchObject({ status: 401 });
    expect(await rotated.call('GET', `/admin/users/${rotated.userId}`, next.key)).toMatchObject({ status: 200 });
    await rotated.close();
  });

  it('finds, lists, disables, enables, ends sessions, sends a reset, removes factors and deletes: each audited with the key\'s id, the owner mailed', async () => {
    const admin = newAdminKey('support');
    const api = await hosted(admin.stored);
    const { userId, email, events } = api;
    const operator: Actor = { kind: 'operator', id: 'support' };
    const session = await api.signIn();

    const found = await api.call('GET', `/admin/users?email=${encodeURIComponent(email.toUpperCase())}`, admin.key);
    expect(found).toMatchObject({ status: 200, body: { userId, email, sessions: 1 } });
    expect(JSON.stringify(found.body)).not.toMatch(/passwordHash|argon2|tokenHash/);
    expect(await api.call('GET', `/admin/users?email=${encodeURIComponent(uniqueEmail())}`, admin.key)).toMatchObject({ status: 404, body: { error: { code: 'user_not_found' } } });
    expect(await api.call('GET', '/admin/users?limit=10', admin.key)).toMatchObject({ status: 200, body: { users: [{ userId, email }] } });
    expect(await api.call('GET', '/admin/users?limit=lots', admin.key)).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await api.call('GET', '/admin/users/no-such-user', admin.key)).toMatchObject({ status: 404, body: { error: { code: 'user_not_found' } } });

    expect(await api.call('POST', `/admin/users/${userId}/disable`, admin.key)).toMatchObject({ status: 204 });
    expect((await api.users.getUserById(userId))?.disabledBy).toBe('support');
    expect((await api.call('GET', `/admin/users/${userId}`, admin.key)).body).toMatchObject({ disabledBy: 'support', sessions: 0 });
    expect(await api.call('POST', `/admin/users/${userId}/enable`, admin.key)).toMatchObject({ status: 204 });
    await api.signIn();
    expect(await api.call('POST', `/admin/users/${userId}/end-sessions`, admin.key)).toMatchObject({ status: 200, body: { sessions: 1, devices: 1 } });
    expect(await api.call('POST', `/admin/users/${userId}/send-reset`, admin.key)).toMatchObject({ status: 200, body: { outcome: 'sent' } });
    expect(await api.call('DELETE', `/admin/users/${userId}/factors/totp`, admin.key)).toMatchObject({ status: 200, body: { removed: false } });
    expect(await api.call('DELETE', `/admin/users/${userId}/factors/everything`, admin.key)).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await api.call('DELETE', `/admin/users/${userId}/passkeys/AAAA`, admin.key)).toMatchObject({ status: 200, body: { removed: false } });
    expect(await api.call('DELETE', `/admin/users/${userId}`, admin.key)).toMatchObject({ status: 204 });
    expect(await api.call('DELETE', `/admin/users/${userId}`, admin.key)).toMatchObject({ status: 404 });
    expect(await api.users.getUserByEmail(email)).toBeUndefined();
    expect(session.accessToken).toBeTruthy();

    expect(actorsOf(events)).toEqual(
      expect.arrayContaining([
        ['auth.account_viewed', operator],
        ['auth.account_disabled', operator],
        ['auth.account_enabled', operator],
        ['auth.sessions_ended', operator],
        ['auth.password_reset_sent_by_operator', operator],
        ['auth.factor_removed_by_operator', operator],
        ['auth.account_deleted', operator],
      ]),
    );
    expect(JSON.stringify(events)).not.toContain(email);
    expect(JSON.stringify(events)).not.toContain(admin.key);
    expect(api.mailbox.sent.filter((mail) => mail.kind === 'account_changed').map((mail) => [mail.to, mail.change])).toEqual([
      [email, 'disabled'],
      [email, 'enabled'],
      [email, 'sessions_ended'],
      [email, 'deleted'],
    ]);
    await api.close();
  });

  it('on the Lambda host: the IAM principal of the event is the operator, audited; an event without one is refused', async () => {
    const fixture = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const registered = await register(fixture.deps, { email, password: PASSWORD });
    const userId = 'userId' in registered ? registered.userId : '';
    const handler = lambdaHandler(OPERATOR_ROUTES, { operators: async () => lambdaOperatorDependencies({ ...fixture.deps, now: () => new Date() }) });
    const principal = 'arn:aws:iam::123456789012:user/support';
    const event = (signed: boolean) => {
      const base = httpApiEvent('POST', `/admin/users/${userId}/disable`);
      return signed ? { ...base, requestContext: { ...base.requestContext, authorizer: { iam: { userArn: principal } } } } : base;
    };
    expect(await handler(event(false) as never, lambdaContext())).toMatchObject({ statusCode: 401 });
    expect((await fixture.users.getUserById(userId))?.disabledAt).toBeUndefined();
    expect(await handler(event(true) as never, lambdaContext())).toMatchObject({ statusCode: 204 });
    expect((await fixture.users.getUserById(userId))?.disabledBy).toBe(principal);
    expect(fixture.events).toContainEqual({ type: 'auth.account_disabled', userId, actor: { kind: 'operator', id: principal } });
    await fixture.dispose();
  });

  it('DELETE /account: the owner, with a recent login, erases the account; the token then stops; the address registers again', async () => {
    const api = await hosted(undefined);
    const session = await api.signIn();
    const owner = (token: string) => fetch(`${api.host.url}/account`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect((await owner('not-a-token')).status).toBe(401);
    expect((await owner(session.accessToken)).status).toBe(204);
    expect((await owner(session.accessToken)).status).toBe(401);
    expect(api.events).toContainEqual(expect.objectContaining({ type: 'auth.account_deleted', userId: api.userId, actor: { kind: 'owner' } }));
    expect(await register(api.deps, { email: api.email, password: PASSWORD })).toHaveProperty('userId');
    await api.close();
  });
});
