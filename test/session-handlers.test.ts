/**
 * Sessions through the Lambda handlers as deployed (token and sessions functions), with INFO
 * logs and EMF on: every audit line is there, and no line holds a token, a password or an email.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'passlane-test';
});
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { createAuthDependencies } from './support/app-dependencies.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { httpApiEvent } from './support/http-api-event.js';
import { lambdaContext } from './support/lambda-context.js';
import { createLoginHandler, createRegisterHandler, createSessionsHandler, createTokenHandler } from './support/lambda-handlers.js';

const PASSWORD = 'correct horse battery staple';
let dynamo: RunningDynamoDb;
let dataDir: string;

beforeAll(async () => {
  dynamo = await startDynalite();
  dataDir = await mkdtemp(join(tmpdir(), 'passlane-session-handlers-'));
});
afterAll(async () => {
  await dynamo?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('logs every session event and never a token, a password or an email', async () => {
  const table = `sessions-${randomUUID()}`;
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table, { maxWaitSeconds: 10 });
  const deps = createAuthDependencies({ DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table, PASSLANE_REFRESH_GRACE_S: '0' }, { dataDir });
  const get = () => deps;
  const [register, login, token, sessions] = [createRegisterHandler(get), createLoginHandler(get), createTokenHandler(get), createSessionsHandler(get)];
  const email = `handlers-${randomUUID()}@example.com`;

  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
  const call = async (handler: typeof login, event: unknown) => {
    const result = await handler(event as Parameters<typeof login>[0], lambdaContext());
    return { status: result.statusCode, body: result.body === '' ? {} : (JSON.parse(result.body) as Record<string, string>) };
  };
  try {
    expect((await call(register, httpApiEvent('POST', '/register', { email, password: PASSWORD }))).status).toBe(201);
    const signedIn = await call(login, httpApiEvent('POST', '/login', { email, password: PASSWORD }));
    expect(signedIn.status).toBe(200);
    const refreshed = await call(token, httpApiEvent('POST', '/token', { grant_type: 'refresh_token', refresh_token: signedIn.body.refreshToken }));
    expect(refreshed.status).toBe(200);
    const listed = await call(sessions, httpApiEvent('GET', '/sessions', undefined, { token: refreshed.body.access_token }));
    expect(listed.status).toBe(200);
    // The spent token again, with no grace: reuse, the session ends.
    const reused = await call(token, httpApiEvent('POST', '/token', { grant_type: 'refresh_token', refresh_token: signedIn.body.refreshToken }));
    // RFC 6749 §5.2: a flat invalid_grant at 400; the reuse is in the description and the log.
    expect(reused).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'the refresh token was already used; the session has been ended' } });
    const after = await call(sessions, httpApiEvent('POST', '/logout', undefined, { token: refreshed.body.access_token }));
    expect(after.status).toBe(401);

    const lines = written.join('').split('\n').filter(Boolean);
    const messages = lines.map((line) => (JSON.parse(line) as { message?: string }).message);
    for (const type of ['auth.login_succeeded', 'auth.session_refreshed', 'auth.refresh_token_reused', 'auth.sessions_ended']) expect(messages).toContain(type);
    expect(lines.map((line) => JSON.parse(line) as { message?: string; code?: string }).find((line) => line.message === 'request rejected')).toMatchObject({ code: 'refresh_token_reused' });
    const secrets = [
      PASSWORD,
      email,
      signedIn.body.accessToken!,
      signedIn.body.refreshToken!,
      signedIn.body.refreshToken!.split('.')[2]!,
      refreshed.body.access_token!,
      refreshed.body.refresh_token!.split('.')[2]!,
    ];
    const all = written.join('');
    for (const secret of secrets) expect(all.includes(secret), 'a secret in the logs').toBe(false);
  } finally {
    vi.restoreAllMocks();
  }
});

it('with PASSLANE_REQUIRED_SCOPE, refuses a live session\'s token without it (403 insufficient_scope) and serves one with it', async () => {
  const table = `sessions-${randomUUID()}`;
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table, { maxWaitSeconds: 10 });
  const env = { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table, PASSLANE_REQUIRED_SCOPE: 'account' };
  const call = async (handler: ReturnType<typeof createLoginHandler>, event: unknown) => {
    const result = await handler(event as Parameters<typeof handler>[0], lambdaContext());
    return { status: result.statusCode, headers: result.headers, body: result.body === '' ? {} : (JSON.parse(result.body) as Record<string, unknown>) };
  };
  const signIn = async (tokenScopes?: string) => {
    const deps = createAuthDependencies({ ...env, ...(tokenScopes && { PASSLANE_TOKEN_SCOPES: tokenScopes }) }, { dataDir });
    const get = () => deps;
    const email = `scoped-${randomUUID()}@example.com`;
    expect((await call(createRegisterHandler(get), httpApiEvent('POST', '/register', { email, password: PASSWORD }))).status).toBe(201);
    const signedIn = await call(createLoginHandler(get), httpApiEvent('POST', '/login', { email, password: PASSWORD }));
    return { signedIn, sessions: createSessionsHandler(get), token: createTokenHandler(get) };
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const unscoped = await signIn();
    const refused = await call(unscoped.sessions, httpApiEvent('GET', '/sessions', undefined, { token: String(unscoped.signedIn.body.accessToken) }));
    expect(refused).toMatchObject({
      status: 403,
      headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
      body: { error: { code: 'insufficient_scope', message: 'the access token does not carry the scope this API requires' } },
    });

    const scoped = await signIn('account orders:read');
    expect(scoped.signedIn.body.scope).toBe('account orders:read');
    expect((await call(scoped.sessions, httpApiEvent('GET', '/sessions', undefined, { token: String(scoped.signedIn.body.accessToken) }))).status).toBe(200);
    const refreshed = await call(scoped.token, httpApiEvent('POST', '/token', { grant_type: 'refresh_token', refresh_token: scoped.signedIn.body.refreshToken }));
    expect(refreshed).toMatchObject({ status: 200, body: { scope: 'account orders:read' } });
  } finally {
    vi.restoreAllMocks();
  }
});
