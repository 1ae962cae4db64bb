/**
 * openapi.yaml against the handlers: every path, method and status the handlers answer below is
 * declared, and each body matches the declared schema (required properties, types, enums) and
 * carries the declared required headers. The checker is deliberately small: it covers the
 * keywords openapi.yaml uses and fails on any other, so the two cannot drift apart silently.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contractErrors, resolveRef, schemaErrors, spec, type Json } from './support/openapi.js';
import {
  createJwksHandler,
  createOpenIdConfigurationHandler,
  createLoginHandler,
  createPasswordHandler,
  createRegisterHandler,
} from './support/lambda-handlers.js';
import { createAuthDependencies, type AppDependencies } from './support/app-dependencies.js';
import type { HttpResponse } from './support/lambda-handlers.js';
import { createPasswordHasher } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local/server.js';
import { createDynamoDbClient } from '../src/storage/dynamodb-client.js';
import { ensureTable } from '../src/storage/table.js';
import { freePort, startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

// ---- the handlers ----

function event(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): APIGatewayProxyEventV2 {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...options.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
}

const context = { awsRequestId: randomUUID(), functionName: 'contract-test' } as Context;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse>;

function handlersFor(getDeps: () => Promise<AppDependencies>): Record<string, Handler> {
  return {
    '/register': createRegisterHandler(getDeps),
    '/login': createLoginHandler(getDeps),
    '/password': createPasswordHandler(getDeps),
    '/.well-known/jwks.json': createJwksHandler(async () => (await getDeps()).tokens),
    '/.well-known/openid-configuration': createOpenIdConfigurationHandler(async () => (await getDeps()).tokens),
  };
}

const PASSWORD = 'correct horse battery staple';

describe('openapi.yaml', () => {
  let dynamo: RunningDynamoDb;
  let dataDir: string;
  let deps: Promise<AppDependencies>;
  const answered: Array<{ method: string; path: string; response: HttpResponse }> = [];

  beforeAll(async () => {
    dynamo = await startDynalite();
    dataDir = await mkdtemp(join(tmpdir(), 'passlane-openapi-'));
    const env = { DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: `contract-${randomUUID()}`, PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '2', PASSLANE_PUBLIC_URL: 'https://auth.passlane.test' };
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), env.PASSLANE_TABLE);
    deps = createAuthDependencies(env, { dataDir, hasher: createPasswordHasher({ pepper: false }) });
  });

  afterAll(async () => {
    await dynamo?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is OpenAPI 3.1 and every $ref resolves', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    const refs: string[] = [];
    const walk = (node: Json): void => {
      if (node && typeof node === 'object') {
        if (typeof node.$ref === 'string') refs.push(node.$ref);
        Object.values(node).forEach(walk);
      }
    };
    walk(spec);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(() => resolveRef(ref), ref).not.toThrow();
  });

  it('declares exactly the routes the functions serve', () => {
    expect(Object.keys(spec.paths).sort()).toEqual(Object.keys(handlersFor(() => deps)).sort());
  });

  it('declares every status the handlers answer, with matching bodies and headers', async () => {
    const handlers = handlersFor(() => deps);
    const send = async (expectedStatus: number, method: string, path: string, options?: Parameters<typeof event>[2]) => {
      const response = await handlers[path]!(event(method, path, options), context);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(expectedStatus);
      answered.push({ method, path, response });
      return JSON.parse(response.body || 'null');
    };
    const email = `contract-${randomUUID()}@example.test`;

    await send(201, 'POST', '/register', { body: { email, password: PASSWORD } });
    await send(409, 'POST', '/register', { body: { email, password: PASSWORD } });
    await send(400, 'POST', '/register', { body: { email: 'nope', password: PASSWORD } });
    await send(400, 'POST', '/register', { body: '{' });
    await send(413, 'POST', '/register', { body: { email, password: 'x'.repeat(9000) } });
    await send(415, 'POST', '/register', { body: {}, headers: { 'content-type': 'text/plain' } });
    await send(405, 'GET', '/register');

    const { accessToken } = await send(200, 'POST', '/login', { body: { email, password: PASSWORD } });
    await send(401, 'POST', '/login', { body: { email, password: 'wrong password' } });
    await send(400, 'POST', '/login', { body: { email } });

    const bearer = { authorization: `Bearer ${accessToken}` };
    await send(401, 'POST', '/password', { body: { currentPassword: PASSWORD, newPassword: 'x' } });
    await send(401, 'POST', '/password', { body: { currentPassword: 'wrong password', newPassword: 'another passphrase' }, headers: bearer });
    await send(400, 'POST', '/password', { body: { currentPassword: PASSWORD }, headers: bearer });
    await send(204, 'POST', '/password', { body: { currentPassword: PASSWORD, newPassword: 'another long passphrase' }, headers: bearer });
    // Two failures of this email from this source (the limit here) make the next attempt wait.
    await send(401, 'POST', '/login', { body: { email, password: 'wrong password' } });
    await send(429, 'POST', '/login', { body: { email, password: PASSWORD } });

    await send(200, 'GET', '/.well-known/jwks.json');
    await send(405, 'DELETE', '/.well-known/jwks.json');
    await send(200, 'GET', '/.well-known/openid-configuration');

    // Storage down and unexpected failures, through the same handlers.
    const closed = await freePort();
    const down = createAuthDependencies({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${closed}` }, { dataDir, hasher: createPasswordHasher({ pepper: false }) });
    const outage = handlersFor(() => down);
    const broken = handlersFor(() => Promise.reject(new Error('boom')));
    for (const [handlers_, status, path] of [[outage, 503, '/login'], [outage, 503, '/register'], [broken, 500, '/login'], [broken, 500, '/.well-known/jwks.json']] as const) {
      const method = path === '/.well-known/jwks.json' ? 'GET' : 'POST';
      const response = await handlers_[path]!(event(method, path, { body: { email, password: PASSWORD } }), context);
      expect(response.statusCode).toBe(status);
      answered.push({ method, path, response });
    }

    const problems = answered.flatMap(({ method, path, response }) =>
      contractErrors(method, path, response).map((problem) => `${method} ${path} ${response.statusCode}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  describe('the local server router', () => {
    let server: LocalServer;

    beforeAll(async () => {
      server = await startLocalServer({ port: 0, dataDir, dynamoDbEndpoint: dynamo.endpoint, env: { PASSLANE_TABLE: `contract-${randomUUID()}` } });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it('answers unknown paths and methods with the documented error body', async () => {
      const notFound = await fetch(`${server.url}/nope`);
      expect(notFound.status).toBe(404);
      expect(schemaErrors(spec.components.responses.NotFound.content['application/json'].schema, await notFound.json())).toEqual([]);

      const wrongMethod = await fetch(`${server.url}/login`, { method: 'PUT' });
      const headers: Record<string, string> = {};
      wrongMethod.headers.forEach((value, name) => (headers[name] = value));
      const response: HttpResponse = { statusCode: wrongMethod.status, headers, body: await wrongMethod.text() };
      expect(response.statusCode).toBe(405);
      expect(contractErrors('PUT', '/login', response)).toEqual([]);
    });
  });
});
