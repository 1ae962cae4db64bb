/**
 * The Lambda handlers end to end, in-process: real use-cases, real hasher, real token service
 * (key in a temp dir) and a real DynamoDB server (DynamoDB Local and dynalite), driven with
 * API Gateway REST (v1), HTTP API (v2) and Function URL events.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Before the Powertools singletons load (vi.hoisted runs ahead of the imports): only ERROR lines
// (which one test reads), and no EMF output (metrics are still recorded, just not printed).
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import {
  createJwksHandler,
  createLoginHandler,
  createPasswordHandler,
  createRegisterHandler,
} from './support/lambda-handlers.js';
import { createAuthDependencies, type AppDependencies } from './support/app-dependencies.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readRateLimits } from '../packages/server/src/config/rate-limit-config.js';
import type { HttpResponse, LambdaHttpEvent } from './support/lambda-handlers.js';
import { TextResponse } from '../packages/server/src/runtimes/lambda/text-response.js';
import { metrics } from '../packages/server/src/observability/metrics.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { dynamoDbServers, freePort, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { lambdaContext } from './support/lambda-context.js';
import { countingHasher } from './support/auth-fixture.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { createTokenService } from '../packages/server/src/features/tokens/token-service.js';

type EventKind = 'v1' | 'v2' | 'functionUrl';
const EVENT_KINDS: EventKind[] = ['v1', 'v2', 'functionUrl'];

interface RequestSpec {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is; bytes as they are (use with base64). */
  body?: unknown;
  base64?: boolean;
  sourceIp?: string;
  /** `name=value` each: payload 2.0 carries them as `cookies`, a REST API as the Cookie header. */
  cookies?: string[];
}

/** A random private address per request unless given, so the per-IP limit never couples tests. */
const randomIp = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function httpEvent(kind: EventKind, spec: RequestSpec): LambdaHttpEvent {
  const method = spec.method ?? 'POST';
  const bytes =
    spec.body === undefined
      ? undefined
      : spec.body instanceof Uint8Array
        ? Buffer.from(spec.body)
        : Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body), 'utf8');
  const body = bytes === undefined ? null : spec.base64 ? bytes.toString('base64') : bytes.toString('utf8');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'vitest',
    ...(kind === 'v1' && spec.cookies !== undefined && { Cookie: spec.cookies.join('; ') }),
    ...spec.headers,
  };
  const sourceIp = spec.sourceIp ?? randomIp();
  const requestId = randomUUID();
  if (kind === 'v1') {
    // REST API: header names as the client sent them, plus multiValueHeaders.
    const event = {
      resource: spec.path,
      path: spec.path,
      httpMethod: method,
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: {
        accountId: '123456789012',
        apiId: 'rest123',
        httpMethod: method,
        identity: { sourceIp, userAgent: 'vitest' },
        path: `/prod${spec.path}`,
        protocol: 'HTTP/1.1',
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: 'abc123',
        resourcePath: spec.path,
        stage: 'prod',
      },
      body,
      isBase64Encoded: spec.base64 === true,
    };
    return event as unknown as APIGatewayProxyEvent;
  }
  // HTTP API and Function URLs: payload 2.0, header names lower-cased.
  const lowerHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const routeKey = kind === 'v2' ? `${method} ${spec.path}` : '$default';
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: spec.path,
    rawQueryString: '',
    headers: lowerHeaders,
    requestContext: {
      accountId: kind === 'v2' ? '123456789012' : 'anonymous',
      apiId: kind === 'v2' ? 'http123' : 'urlid123',
      domainName: kind === 'v2' ? 'http123.execute-api.eu-west-1.amazonaws.com' : 'urlid123.lambda-url.eu-west-1.on.aws',
      domainPrefix: kind === 'v2' ? 'http123' : 'urlid123',
      http: { method, path: spec.path, protocol: 'HTTP/1.1', sourceIp, userAgent: 'vitest' },
      requestId,
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(spec.cookies !== undefined && { cookies: spec.cookies }),
    ...(body !== null && { body }),
    isBase64Encoded: spec.base64 === true,
  };
  return event;
}


function handlersFor(deps: Promise<AppDependencies>) {
  const getDeps = () => deps;
  return {
    register: createRegisterHandler(getDeps),
    login: createLoginHandler(getDeps),
    password: createPasswordHandler(getDeps),
    jwks: createJwksHandler(async () => (await deps).tokens),
  };
}
type Handlers = ReturnType<typeof handlersFor>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, checked by the assertions
type ResponseBody = any;

function parse(response: HttpResponse): { status: number; headers: Record<string, string>; body: ResponseBody } {
  return { status: response.statusCode, headers: response.headers, body: response.body === '' ? undefined : JSON.parse(response.body) };
}

const uniqueEmail = (): string => `user-${randomUUID()}@example.test`;
const PASSWORD = 'correct horse battery staple';

let dataDir: string;
const { hasher: sharedHasher } = countingHasher();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'passlane-http-'));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(dynamoDbServers)('HTTP handlers on $name', ({ start }) => {
  let server: RunningDynamoDb;
  let env: Record<string, string>;
  let handlers: Handlers;
  let deps: Promise<AppDependencies>;

  const call = async (handler: keyof Handlers, kind: EventKind, spec: RequestSpec) =>
    parse(await handlers[handler](httpEvent(kind, spec), lambdaContext()));

  beforeAll(async () => {
    server = await start();
    env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: `passlane-http-${randomUUID()}` };
    await ensureTable(createDynamoDbClient({ endpoint: server.endpoint }), env.PASSLANE_TABLE!);
    deps = createAuthDependencies(env, { dataDir, hasher: sharedHasher });
    handlers = handlersFor(deps);
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe.each(EVENT_KINDS)('with %s events', (kind) => {
    it('registers, logs in, changes the password; the old password then fails and the new one works', async () => {
      const email = uniqueEmail();
      const registered = await call('register', kind, { path: '/register', body: { email: `  ${email.toUpperCase()} `, password: PASSWORD } });
      expect(registered.status).toBe(201);
      expect(registered.body).toEqual({ userId: expect.any(String) });

      // Stored trimmed and lower-cased, so the plain spelling logs in.
      const loggedIn = await call('login', kind, { path: '/login', body: { email, password: PASSWORD } });
      expect(loggedIn).toMatchObject({ status: 200, body: { accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 } });
      expect(loggedIn.headers['cache-control']).toBe('no-store');

      const changed = await call('password', kind, {
        path: '/password',
        headers: { Authorization: `Bearer ${loggedIn.body.accessToken}` },
        body: { currentPassword: PASSWORD, newPassword: 'a different long passphrase' },
      });
      expect(changed.status).toBe(204);
      expect(changed.body).toBeUndefined();

      const oldPassword = await call('login', kind, { path: '/login', body: { email, password: PASSWORD } });
      expect(oldPassword.status).toBe(401);
      expect(oldPassword.body.error.code).toBe('invalid_credentials');
      const newPassword = await call('login', kind, { path: '/login', body: { email, password: 'a different long passphrase' } });
      expect(newPassword.status).toBe(200);
    });

    it('answers the device cookie as the integration takes it, and reads it back from a login', async () => {
      const email = uniqueEmail();
      expect((await call('register', kind, { path: '/register', body: { email, password: PASSWORD } })).status).toBe(201);
      const first = await handlers.login(httpEvent(kind, { path: '/login', body: { email, password: PASSWORD } }), lambdaContext());
      // Payload 2.0 takes Set-Cookie only as `cookies`; a REST API as a header.
      const setCookie = kind === 'v1' ? first.headers['set-cookie'] : (first as { cookies?: string[] }).cookies?.[0];
      const deviceToken = JSON.parse(first.body).deviceToken as string;
      expect(setCookie).toMatch(new RegExp(`^__Host-passlane-device-[0-9a-f]{16}=${deviceToken.replace(/[.]/g, '\\.')}; `));
      const again = await call('login', kind, { path: '/login', body: { email, password: PASSWORD }, cookies: ['theme=dark', setCookie!.split(';')[0]!] });
      // A known device keeps its token; an unknown client would have been given a new one.
      expect(again.body.deviceToken).toBe(deviceToken);
    });

    it('registers and logs in with PASSLANE_LAMBDA_FAST_PATHS=off: bodies through web Requests and Responses', async () => {
      vi.stubEnv('PASSLANE_LAMBDA_FAST_PATHS', 'off');
      try {
        // Read when a handler is made, as a function's module is at its cold start.
        const plain = handlersFor(deps);
        const heldText = vi.spyOn(TextResponse.prototype, 'text');
        const email = uniqueEmail();
        const registered = parse(await plain.register(httpEvent(kind, { path: '/register', body: { email, password: PASSWORD }, base64: true }), lambdaContext()));
        expect(registered).toMatchObject({ status: 201, body: { userId: expect.any(String) } });
        const loggedIn = parse(await plain.login(httpEvent(kind, { path: '/login', body: { email, password: PASSWORD } }), lambdaContext()));
        expect(loggedIn).toMatchObject({ status: 200, body: { tokenType: 'Bearer' } });
        expect(loggedIn.headers['cache-control']).toBe('no-store');
        expect(heldText).not.toHaveBeenCalled();
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('accepts a base64-encoded body', async () => {
      const result = await call('register', kind, { path: '/register', body: { email: uniqueEmail(), password: PASSWORD }, base64: true });
      expect(result.status).toBe(201);
    });

    it('answers 409 for an email that is taken', async () => {
      const email = uniqueEmail();
      expect((await call('register', kind, { path: '/register', body: { email, password: PASSWORD } })).status).toBe(201);
      const again = await call('register', kind, { path: '/register', body: { email: email.toUpperCase(), password: PASSWORD } });
      expect(again).toMatchObject({ status: 409, body: { error: { code: 'account_exists' } } });
    });
  });

  describe('bad input gets a clear 4xx, never a 5xx', () => {
    const big = 'x'.repeat(9 * 1024);
    // [name, request, status, code]
    const cases: Array<[string, Omit<RequestSpec, 'path'>, number, string]> = [
      ['malformed JSON', { body: '{"email": "a@example.com",' }, 400, 'invalid_json'],
      ['an empty body', { body: '' }, 400, 'invalid_json'],
      ['no body', {}, 400, 'invalid_json'],
      ['invalid UTF-8', { body: Buffer.from([0x7b, 0xff, 0x7d]), base64: true }, 400, 'invalid_json'],
      ['text/plain', { headers: { 'Content-Type': 'text/plain' }, body: { email: 'a@example.com', password: PASSWORD } }, 415, 'unsupported_media_type'],
      ['form encoding', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'email=a' }, 415, 'unsupported_media_type'],
      ['a non-UTF-8 charset', { headers: { 'Content-Type': 'application/json; charset=iso-8859-1' }, body: {} }, 415, 'unsupported_media_type'],
      ['an oversize body', { body: { email: 'a@example.com', password: 'p', padding: big } }, 413, 'payload_too_large'],
      ['an oversize base64 body', { body: { email: 'a@example.com', password: 'p', padding: big }, base64: true }, 413, 'payload_too_large'],
      ['an array', { body: [] }, 400, 'invalid_request'],
      ['null', { body: 'null' }, 400, 'invalid_request'],
      ['a string', { body: '"hello"' }, 400, 'invalid_request'],
      ['a missing email', { body: { password: PASSWORD } }, 400, 'invalid_request'],
      ['a numeric email', { body: { email: 42, password: PASSWORD } }, 400, 'invalid_request'],
      ['an invalid email', { body: { email: 'not-an-email', password: PASSWORD } }, 400, 'invalid_request'],
      ['an email with spaces inside', { body: { email: 'a b@example.com', password: PASSWORD } }, 400, 'invalid_request'],
      ['an overlong email', { body: { email: `${'a'.repeat(250)}@example.com`, password: PASSWORD } }, 400, 'invalid_request'],
      ['an email with a soft hyphen', { body: { email: 'a@exa\u00admple.com', password: PASSWORD } }, 400, 'invalid_request'],
      ['an email with a zero-width space', { body: { email: 'a\u200b@example.com', password: PASSWORD } }, 400, 'invalid_request'],
      // The mail layer's URL parser decodes it: the mail went to a@example.com.
      ['an email with a percent escape in the domain', { body: { email: 'a@ex%61mple.com', password: PASSWORD } }, 400, 'invalid_request'],
      ['a missing password', { body: { email: 'a@example.com' } }, 400, 'invalid_request'],
      ['a non-string password', { body: { email: 'a@example.com', password: ['x'] } }, 400, 'invalid_request'],
      ['the wrong method', { method: 'GET' }, 405, 'method_not_allowed'],
    ];

    describe.each(['register', 'login'] as const)('%s', (route) => {
      it.each(cases)('%s', async (_name, spec, status, code) => {
        for (const kind of EVENT_KINDS) {
          const result = await call(route, kind, { path: `/${route}`, ...spec });
          expect(result.status, kind).toBe(status);
          expect(result.body, kind).toEqual({ error: { code, message: expect.any(String) } });
          expect(result.headers['content-type']).toBe('application/json');
        }
      });
    });

    it('refuses an overlong password: register by the password rules (reason too_long), login by the byte bound', async () => {
      const body = { email: uniqueEmail(), password: 'p'.repeat(2000) };
      for (const kind of EVENT_KINDS) {
        const registered = await call('register', kind, { path: '/register', body });
        expect(registered.status, kind).toBe(400);
        expect(registered.body, kind).toEqual({ error: { code: 'password_rejected', message: 'Use at most 256 characters.', reason: 'too_long' } });
        const loggedIn = await call('login', kind, { path: '/login', body });
        expect(loggedIn.status, kind).toBe(400);
        expect(loggedIn.body, kind).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
      }
    });

    it('accepts application/json with a UTF-8 charset, in any case', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"']) {
        const result = await call('register', 'v2', {
          path: '/register',
          headers: { 'Content-Type': contentType },
          body: { email: uniqueEmail(), password: PASSWORD },
        });
        expect(result.status, contentType).toBe(201);
      }
    });

    it('limits the decoded size, not the base64 size', async () => {
      // ~7.8 KiB of JSON is ~10.4 KiB of base64: accepted, because the limit applies to the bytes.
      const body = { email: uniqueEmail(), password: PASSWORD, padding: 'x'.repeat(7800) };
      const result = await call('register', 'functionUrl', { path: '/register', body, base64: true });
      expect(result.status).toBe(201);
    });

    it('answers 401 with WWW-Authenticate for /password without a usable token, whatever the body\'s fields', async () => {
      // The token is checked before the body's fields: a caller without a session learns nothing of what they should be.
      for (const body of [{ currentPassword: PASSWORD, newPassword: 'whatever it is now' }, {}, { currentPassword: 42 }]) {
        for (const headers of [{}, { Authorization: 'Basic dXNlcjpwYXNz' }, { Authorization: 'Bearer not.a.token' }] as Array<Record<string, string>>) {
          const result = await call('password', 'v2', { path: '/password', headers, body });
          expect(result.status).toBe(401);
          expect(result.body.error.code).toBe('unauthenticated');
          expect(result.headers['www-authenticate']).toBe('Bearer');
        }
      }
      // The envelope still comes first.
      const notJson = await call('password', 'v2', { path: '/password', headers: { 'Content-Type': 'text/plain' }, body: {} });
      expect(notJson.body.error.code).toBe('unsupported_media_type');
    });

    it('answers 400 for an event that is not an HTTP event', async () => {
      const result = parse(await handlers.login({ source: 'aws.events' } as unknown as LambdaHttpEvent, lambdaContext()));
      expect(result).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    });
  });

  it('answers an unknown email and a wrong password with the same status, headers and body', async () => {
    const email = uniqueEmail();
    expect((await call('register', 'v2', { path: '/register', body: { email, password: PASSWORD } })).status).toBe(201);
    const wrongPassword = await call('login', 'v2', { path: '/login', body: { email, password: 'not the password at all' } });
    const unknownEmail = await call('login', 'v2', { path: '/login', body: { email: uniqueEmail(), password: PASSWORD } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('limits failures per account and source before any hash is computed (429 + Retry-After)', async () => {
    const { hasher, calls } = countingHasher();
    const limited = handlersFor(createAuthDependencies({ ...env, PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '2' }, { dataDir, hasher }));
    const email = uniqueEmail();
    // One source: failures are counted per email and source.
    const sourceIp = '198.51.100.9';
    const attempt = () =>
      limited.login(httpEvent('v2', { path: '/login', body: { email, password: 'wrong password here' }, sourceIp }), lambdaContext()).then(parse);
    expect((await limited.register(httpEvent('v2', { path: '/register', body: { email, password: PASSWORD } }), lambdaContext())).statusCode).toBe(201);

    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    const hashesBefore = { ...calls };
    const third = await attempt();
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The first wait after the allowed failures: PASSLANE_LOGIN_DELAY_BASE_S (30 s).
    expect(Number(third.headers['retry-after'])).toBeLessThanOrEqual(30);
    expect(calls).toEqual(hashesBefore);
  });

  it('counts audit events as metrics and flushes them after each invocation', async () => {
    const added = vi.spyOn(metrics, 'addMetric');
    const published = vi.spyOn(metrics, 'publishStoredMetrics');
    const email = uniqueEmail();
    await call('register', 'v2', { path: '/register', body: { email, password: PASSWORD } });
    await call('login', 'v2', { path: '/login', body: { email, password: PASSWORD } });
    await call('login', 'v2', { path: '/login', body: { email } }); // 400: no audit event, still flushed
    expect(added.mock.calls.map(([name, unit, value]) => [name, unit, value])).toEqual([
      ['Registered', 'Count', 1],
      ['LoginSucceeded', 'Count', 1],
    ]);
    expect(published).toHaveBeenCalledTimes(3);
  });

  it('serves the JWKS, and login tokens verify against it', async () => {
    const jwks = await call('jwks', 'v2', { method: 'GET', path: '/.well-known/jwks.json', headers: { 'Content-Type': '' } });
    expect(jwks.status).toBe(200);
    expect(jwks.headers['cache-control']).toMatch(/max-age=300/);
    expect(jwks.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.body.keys) {
      expect(key).toMatchObject({ kty: expect.any(String), kid: expect.any(String), alg: expect.any(String), use: 'sig' });
      for (const privateParam of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(privateParam);
    }
    expect((await call('jwks', 'v1', { method: 'POST', path: '/.well-known/jwks.json' })).status).toBe(405);

    const email = uniqueEmail();
    await call('register', 'v1', { path: '/register', body: { email, password: PASSWORD } });
    const { body } = await call('login', 'v1', { path: '/login', body: { email, password: PASSWORD } });
    const { payload } = await jwtVerify(body.accessToken, createLocalJWKSet(jwks.body), { issuer: 'passlane', audience: 'passlane-api' });
    expect(payload.sub).toEqual(expect.any(String));
  });
});

describe('storage outage', () => {
  it('answers 503 with Retry-After for login and register, and computes no hash', async () => {
    const closedPort = await freePort();
    const { hasher, calls } = countingHasher();
    const handlers = handlersFor(createAuthDependencies({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${closedPort}` }, { dataDir, hasher }));
    for (const [route, handler] of [['login', handlers.login], ['register', handlers.register]] as const) {
      const result = parse(await handler(httpEvent('v2', { path: `/${route}`, body: { email: uniqueEmail(), password: PASSWORD } }), lambdaContext()));
      expect(result.status, route).toBe(503);
      expect(result.body, route).toEqual({ error: { code: 'temporarily_unavailable', message: expect.any(String) } });
      expect(Number(result.headers['retry-after']), route).toBeGreaterThanOrEqual(1);
    }
    expect(calls).toEqual({ hash: 0, verify: 0, verifyDummy: 0 });
  });
});

describe('a function\'s service', () => {
  it('is built on its first request and kept for the container; a failed build is tried again', async () => {
    const tokens = createTokenService({ keyring: await createKeyring(await generateSigningKey()) });
    // The failed build's 500 is logged: not this test's output.
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let builds = 0;
    const handler = createJwksHandler(async () => {
      builds++;
      if (builds === 1) throw new Error('a passing fault at the cold start');
      return tokens;
    });
    const get = async () => parse(await handler(httpEvent('v2', { method: 'GET', path: '/.well-known/jwks.json' }), lambdaContext())).status;
    expect(await get()).toBe(500);
    expect([await get(), await get(), await get()]).toEqual([200, 200, 200]);
    expect(builds).toBe(2);
  });
});

describe('unexpected errors', () => {
  it('answer a fixed 500 body and log the request id, not the request', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const handler = createLoginHandler(async () => {
      throw new TypeError('boom');
    });
    const email = uniqueEmail();
    const event = httpEvent('v2', { path: '/login', body: { email, password: PASSWORD } });
    const result = parse(await handler(event, lambdaContext()));
    vi.restoreAllMocks();

    expect(result.status).toBe(500);
    expect(result.body).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    const lines = written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const errorLine = lines.find((line) => line.level === 'ERROR');
    expect(errorLine).toMatchObject({ message: 'unhandled error', requestId: (event as APIGatewayProxyEventV2).requestContext.requestId });
    expect(errorLine.error).toMatchObject({ name: 'TypeError', message: 'boom' });
    const all = written.join('');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(email);
  });
});

describe('timeouts and configuration', () => {
  it('answers 503 with Retry-After when the invocation is about to time out', async () => {
    const handler = createLoginHandler(() => new Promise<never>(() => undefined));
    const result = parse(await handler(httpEvent('v2', { path: '/login', body: { email: uniqueEmail(), password: PASSWORD } }), lambdaContext(50)));
    expect(result.status).toBe(503);
    expect(result.body.error.code).toBe('temporarily_unavailable');
    expect(result.headers['retry-after']).toBe('2');
  });

  it('reads the rate limits from env, with defaults, and names the variable on nonsense', () => {
    expect(readRateLimits({})).toEqual({
      perSource: 100,
      windowSeconds: 300,
      passwordChangePerAccount: 10,
      login: {
        failuresPerAccountSource: 5,
        delayBaseSeconds: 30,
        delayMaxSeconds: 900,
        accountFailureCeiling: 100,
        accountLockSeconds: 3600,
        failureFloorMs: 0,
        successesPerAccount: 30,
        successesPerSource: 300,
      },
    });
    expect(
      readRateLimits({
        PASSLANE_LOGIN_LIMIT_PER_IP: ' 50 ',
        PASSLANE_LOGIN_LIMIT_WINDOW_S: '60',
        PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: '3',
        PASSLANE_LOGIN_DELAY_BASE_S: '10',
        PASSLANE_LOGIN_DELAY_MAX_S: '60',
        PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: '20',
        PASSLANE_LOGIN_ACCOUNT_LOCK_S: '600',
        PASSLANE_PASSWORD_CHANGE_LIMIT_PER_ACCOUNT: '4',
        PASSLANE_LOGIN_FAILURE_FLOOR_MS: '250',
        PASSLANE_LOGIN_SUCCESS_LIMIT_PER_ACCOUNT: '12',
        PASSLANE_LOGIN_SUCCESS_LIMIT_PER_IP: '40',
      }),
    ).toEqual({
      perSource: 50,
      windowSeconds: 60,
      passwordChangePerAccount: 4,
      login: {
        failuresPerAccountSource: 3,
        delayBaseSeconds: 10,
        delayMaxSeconds: 60,
        accountFailureCeiling: 20,
        accountLockSeconds: 600,
        failureFloorMs: 250,
        successesPerAccount: 12,
        successesPerSource: 40,
      },
    });
    for (const [name, value] of [
      ['PASSLANE_LOGIN_LIMIT_PER_IP', '-5'],
      ['PASSLANE_LOGIN_LIMIT_PER_IP', '1.5'],
      ['PASSLANE_LOGIN_LIMIT_WINDOW_S', '1e3'],
      ['PASSLANE_LOGIN_LIMIT_WINDOW_S', '999999'],
      ['PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE', '0'],
      // NIST SP 800-63B-4: never more than 100 consecutive failures.
      ['PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING', '101'],
      ['PASSLANE_LOGIN_DELAY_BASE_S', 'ten'],
      // The old attempt-based variable is refused, not silently ignored.
      ['PASSLANE_LOGIN_LIMIT_PER_ACCOUNT', '10'],
    ]) {
      expect(() => readRateLimits({ [name!]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => readRateLimits({ [name!]: value })).toThrow(name);
    }
    // The longest wait is never shorter than the first.
    expect(() => readRateLimits({ PASSLANE_LOGIN_DELAY_BASE_S: '60', PASSLANE_LOGIN_DELAY_MAX_S: '30' })).toThrow('PASSLANE_LOGIN_DELAY_MAX_S');
  });

  it('answers 500, not a crash, when the configuration is bad', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const handler = createLoginHandler(() => createAuthDependencies({ PASSLANE_LOGIN_LIMIT_PER_IP: 'lots' }, { dataDir }));
    const result = parse(await handler(httpEvent('v1', { path: '/login', body: { email: uniqueEmail(), password: PASSWORD } }), lambdaContext()));
    vi.restoreAllMocks();
    expect(result).toEqual({ status: 500, headers: expect.any(Object), body: { error: { code: 'internal_error', message: 'internal error' } } });
    // The operator sees which setting is wrong; the client does not.
    expect(JSON.parse(written.join('')).error).toMatchObject({ name: 'ConfigError', message: expect.stringContaining('PASSLANE_LOGIN_LIMIT_PER_IP') });
  });
});
