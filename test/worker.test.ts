/**
 * The Workers build end to end: packages/server/src/runtimes/workers/worker.ts bundled by packages/server/src/runtimes/workers/build-worker.ts (what deploys),
 * run in workerd (Miniflare) against dynalite on loopback, secrets as bindings. The same HTTP
 * contract as the Lambda handlers (test/http-handlers.test.ts).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import { Miniflare, type WorkerOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, WORKER_COMPATIBILITY_FLAGS } from '../packages/server/src/runtimes/workers/build-worker.js';
import type { WorkerEnv } from '../packages/server/src/runtimes/workers/worker.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { ensureTable, USER_KEY_PREFIX } from '../packages/server/src/storage/table.js';
import { publicJwks } from '../packages/server/src/features/tokens/jwks.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { freePort, startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { storedFormOf } from './support/import-rows.js';
import { onePerScheme } from './support/legacy-accounts.js';
import { ISOLATE_HASH_LIMITS, ISOLATE_VERIFY_BUDGET } from '../packages/server/src/runtimes/workers/edge-limits.js';
import { limitsForBudget, tighterLimits } from '../packages/passlane/src/verify-budget.js';

const TABLE = 'passlane-worker-test';
const PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'wrong password, long enough';
const PEPPER_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
const FINGERPRINT_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
/** Failures of one email from one source before the next attempt must wait. */
const FAILURE_LIMIT = 5;

let outdir: string;
let dynamo: RunningDynamoDb;
let miniflare: Miniflare;
let bindings: WorkerEnv & Record<string, string>;
/** The Worker as wrangler.toml deploys it; bindings differ per test Worker. */
let workerScript: WorkerOptions;
const logLines: string[] = [];

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'passlane-worker-'));
  const [bundle, server, jwk, wrangler] = await Promise.all([
    buildWorker({ outdir }),
    startDynalite(),
    generateSigningKey('EdDSA'),
    readFile(new URL('../wrangler.toml', import.meta.url), 'utf8'),
  ]);
  dynamo = server;
  // The table exists before the Worker starts, as in AWS (the infrastructure owns it).
  await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), TABLE, { maxWaitSeconds: 10 });
  bindings = {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    PASSLANE_TABLE: TABLE,
    PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(jwk),
    PASSLANE_PEPPER_KEYS: `test-1:${PEPPER_KEY}`,
    PASSLANE_FINGERPRINT_KEY: FINGERPRINT_KEY,
    PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: String(FAILURE_LIMIT),
    // The test dispatches to made-up hosts; discovery may name them.
    PASSLANE_DISCOVERY_TRUST_HOST: 'true',
  };
  workerScript = {
    modules: true,
    scriptPath: bundle.scriptPath,
    // Module names are paths relative to this root; the default (cwd) is not an ancestor of tmpdir.
    modulesRoot: outdir,
    // wrangler.toml's rule: workerd compiles argon2.wasm before the script runs.
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: /^compatibility_date = "([\d-]+)"/m.exec(wrangler)![1]!,
    compatibilityFlags: WORKER_COMPATIBILITY_FLAGS,
  };
  miniflare = new Miniflare({
    ...workerScript,
    bindings,
    // Outbound fetch to 127.0.0.1 (dynalite) works by default. The Worker's console is collected, not printed.
    handleStructuredLogs: ({ message }: { message: string }) => void logLines.push(message),
  });
  await miniflare.ready;
});

afterAll(async () => {
  await miniflare?.dispose();
  await dynamo?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

interface Call {
  method?: string;
  path: string;
  /** Sent as is, with Content-Type application/json unless `headers` says otherwise. */
  body?: string;
  headers?: Record<string, string>;
  /** Another Miniflare, and the origin its Worker's `routes` match. */
  target?: { miniflare: Miniflare; origin: string };
}

interface Answer {
  status: number;
  headers: { get(name: string): string | null };
  body: Record<string, unknown> | undefined;
}

async function call({ method = 'GET', path, body, headers = {}, target }: Call): Promise<Answer> {
  const { miniflare: runtime, origin } = target ?? { miniflare, origin: 'https://auth.test' };
  const response = await runtime.dispatchFetch(`${origin}${path}`, {
    method,
    headers: { 'cf-connecting-ip': '203.0.113.7', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  call({ method: 'POST', path, body: JSON.stringify(body), headers });

/** Each test its own account, so rate-limit counters never cross. */
let accounts = 0;
const newEmail = () => `User${++accounts}.Worker@Example.COM`;

async function registered(): Promise<string> {
  const email = newEmail();
  expect((await post('/register', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

/** Cloudflare's limit on a Worker's compressed size on the free plan (10 MB on the paid one). */
const FREE_PLAN_GZIPPED_BYTES = 3 * 1024 * 1024;

it('fits the free plan: under 3 MB gzipped (its size: packages/server/src/runtimes/workers/README.md)', async () => {
  const script = await readFile(String(workerScript.scriptPath));
  expect(gzipSync(script).length).toBeLessThan(FREE_PLAN_GZIPPED_BYTES);
});

describe('register', () => {
  it('creates an account (201) with a peppered argon2id hash, and refuses the same email (409)', async () => {
    const email = newEmail();
    const created = await post('/register', { email, password: PASSWORD });
    expect(created).toMatchObject({ status: 201, body: { userId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(created.headers.get('cache-control')).toBe('no-store');

    const { Item } = await createDynamoDbClient({ endpoint: dynamo.endpoint }).send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: `${USER_KEY_PREFIX}${email.toLowerCase()}` } } }),
    );
    expect(Item?.passwordHash?.S).toMatch(/^\$pepper\$v=1,k=test-1\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    // The same address in another case is the same account.
    const duplicate = await post('/register', { email: email.toUpperCase(), password: 'another long password' });
    expect(duplicate).toMatchObject({ status: 409, body: { error: { code: 'account_exists' } } });
  });

  it('answers an invalid field with 400', async () => {
    const answer = await post('/register', { email: 'not-an-email', password: PASSWORD });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
  });
});

describe('login', () => {
  it("issues a token (200) that verifies against the Worker's JWKS", async () => {
    const email = await registered();
    const { status, body } = await post('/login', { email, password: PASSWORD });
    expect(status).toBe(200);
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });

    const jwks = await call({ path: '/.well-known/jwks.json' });
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = createLocalJWKSet(jwks.body as unknown as JSONWebKeySet);
    const verified = await jwtVerify(body!.accessToken as string, keys, { issuer: 'passlane', audience: 'passlane-api', typ: 'at+jwt' });
    expect(verified.protectedHeader.alg).toBe('EdDSA');
    expect(verified.payload.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const email = await registered();
    const wrong = await post('/login', { email, password: WRONG_PASSWORD });
    const unknown = await post('/login', { email: newEmail(), password: PASSWORD });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('answers a stored hash needing more memory than an isolate has like a wrong password (401, logged), instead of crashing', async () => {
    const email = newEmail().toLowerCase();
    const users = new AccountStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), TABLE);
    // Well-formed, m = 128 MiB: within the Lambda defaults (1 GiB), beyond the Worker's bound.
    const huge = `$argon2id$v=19$m=131072,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`;
    await users.createUser({ email, userId: 'huge-hash-user', passwordHash: huge, createdAt: new Date() });
    expect(await post('/login', { email, password: PASSWORD })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    expect(logLines.join('\n')).toMatch(/"auth.stored_hash_rejected".*"code":"ERR_HASH_PARAMS_OUT_OF_BOUNDS"/);
    // The isolate lives on.
    expect((await post('/login', { email: await registered(), password: PASSWORD })).status).toBe(200);
  });

  it('answers a stored hash costing more time than an isolate gives one verify like a wrong password, before any hashing', async () => {
    const email = newEmail().toLowerCase();
    const users = new AccountStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), TABLE);
    // Well-formed SHA-512-crypt at 500,000 rounds (passlib's default is 656,000): within the
    // Lambda bounds, some 20 s of JavaScript in an isolate, past its 1 s verify budget.
    const slow = `$6$rounds=500000$saltsaltsaltsalt$${'A'.repeat(86)}`;
    await users.createUser({ email, userId: 'slow-hash-user', passwordHash: slow, createdAt: new Date() });
    const before = logLines.length;
    const started = performance.now();
    expect(await post('/login', { email, password: PASSWORD })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(logLines.slice(before).join('\n')).toMatch(/"auth.stored_hash_rejected".*"code":"ERR_HASH_PARAMS_OUT_OF_BOUNDS"/);
  });

  it('limits failures on an email from one source with 429 and Retry-After', async () => {
    const email = newEmail();
    for (let attempt = 1; attempt <= FAILURE_LIMIT; attempt++) {
      expect((await post('/login', { email, password: PASSWORD })).status).toBe(401);
    }
    const limited = await post('/login', { email, password: PASSWORD });
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('every stored format', () => {
  // The Worker's bounds (packages/server/src/runtimes/workers/edge-limits.ts): what needs more memory or time than an isolate has is answered 401 (above).
  const fitsAnIsolate = createPasswordHasher({ pepper: false, limits: tighterLimits(ISOLATE_HASH_LIMITS, limitsForBudget(ISOLATE_VERIFY_BUDGET, false)) });
  const fits = (hash: string) => {
    try {
      fitsAnIsolate.describe(hash);
      return true;
    } catch {
      return false;
    }
  };
  const fixtures = onePerScheme((fixture) => fits(storedFormOf(fixture.hash)));

  it('verifies one imported account of every scheme with WASM in workerd: wrong 401, right 200 and upgraded to argon2id', async () => {
    const users = new AccountStore(createDynamoDbClient({ endpoint: dynamo.endpoint }), TABLE);
    const emails = fixtures.map(() => newEmail().toLowerCase());
    await Promise.all(fixtures.map((fixture, i) => users.createUser({ email: emails[i]!, userId: `legacy-${i}`, passwordHash: storedFormOf(fixture.hash), createdAt: new Date() })));
    const outcomes = [];
    for (const [i, fixture] of fixtures.entries()) {
      // A source of its own per account: the per-source failure limits stay out of the way.
      const source = { 'cf-connecting-ip': `198.51.100.${i % 250}` };
      const wrong = await post('/login', { email: emails[i], password: fixture.wrongPassword }, source);
      const right = await post('/login', { email: emails[i], password: fixture.password }, source);
      const upgradedTo = fitsAnIsolate.describe((await users.getUserByEmail(emails[i]!))!.passwordHash).scheme;
      outcomes.push({ id: fixture.id, wrong: wrong.status, right: right.status, upgradedTo });
    }
    // Every scheme has a fixture within an isolate's bounds: none is left out here.
    expect(fixtures.length).toBe(onePerScheme().length);
    expect(outcomes).toEqual(fixtures.map((fixture) => ({ id: fixture.id, wrong: 401, right: 200, upgradedTo: 'argon2id' })));
  }, 180_000);
});

describe('password change', () => {
  it('changes the password with a Bearer token (204), and the new one logs in', async () => {
    const email = await registered();
    const { body } = await post('/login', { email, password: PASSWORD });
    const newPassword = 'a different long passphrase';
    const authorization = `Bearer ${body!.accessToken as string}`;
    expect(await post('/password', { currentPassword: PASSWORD, newPassword }, { authorization })).toMatchObject({ status: 204, body: undefined });
    expect((await post('/login', { email, password: newPassword })).status).toBe(200);
  });

  it('refuses a missing token with 401 and WWW-Authenticate', async () => {
    const refused = await post('/password', { currentPassword: PASSWORD, newPassword: 'whatever it is' });
    expect(refused).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('request envelope', () => {
  it('malformed JSON: 400 invalid_json, without echoing the body', async () => {
    const answer = await call({ method: 'POST', path: '/login', body: `{"email":"a@b.c","password":"${PASSWORD}"` });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: 'request body is not valid JSON' } } });
  });

  it('oversize body: 413', async () => {
    const answer = await post('/login', { email: 'a@example.com', password: 'x'.repeat(9 * 1024) });
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
  });

  it('wrong content type: 415', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: PASSWORD });
    const answer = await call({ method: 'POST', path: '/login', body, headers: { 'content-type': 'text/plain' } });
    expect(answer).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
  });

  it('unknown route: 404; wrong method: 405 with Allow', async () => {
    expect(await call({ path: '/nowhere' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const wrongMethod = await call({ path: '/login' });
    expect(wrongMethod).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } });
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });
});

it('serves the discovery documents, pointing at its token endpoint and JWKS', async () => {
  const document = {
    issuer: 'passlane',
    token_endpoint: 'https://auth.test/token',
    jwks_uri: 'https://auth.test/.well-known/jwks.json',
    grant_types_supported: ['refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
  };
  expect(await call({ path: '/.well-known/openid-configuration' })).toMatchObject({ status: 200, body: document });
  expect(await call({ path: '/.well-known/oauth-authorization-server' })).toMatchObject({ status: 200, body: document });
});

describe('failures', () => {
  let broken: Miniflare;
  const brokenLogLines: string[] = [];
  const storageDown = () => ({ miniflare: broken, origin: 'https://storage-down.test' });
  const noSigningKey = () => ({ miniflare: broken, origin: 'https://no-signing-key.test' });
  const publicKeysOnly = () => ({ miniflare: broken, origin: 'https://public-keys-only.test' });
  let publishedKeys: JSONWebKeySet;

  beforeAll(async () => {
    const closedPort = await freePort();
    publishedKeys = publicJwks(await createKeyring(JSON.parse(bindings.PASSLANE_JWT_PRIVATE_KEY!) as JWK)) as JSONWebKeySet;
    broken = new Miniflare({
      workers: [
        {
          ...workerScript,
          name: 'storage-down',
          routes: ['storage-down.test/*'],
          bindings: { ...bindings, DYNAMODB_ENDPOINT: `http://127.0.0.1:${closedPort}` },
        },
        { ...workerScript, name: 'no-signing-key', routes: ['no-signing-key.test/*'], bindings: { DYNAMODB_ENDPOINT: dynamo.endpoint } },
        // No private key, no AWS credentials: enough to publish, nothing else.
        {
          ...workerScript,
          name: 'public-keys-only',
          routes: ['public-keys-only.test/*'],
          bindings: { PASSLANE_JWT_PUBLIC_KEYS: JSON.stringify(publishedKeys), PASSLANE_PUBLIC_URL: 'https://public-keys-only.test' },
        },
      ],
      handleStructuredLogs: ({ message }: { message: string }) => void brokenLogLines.push(message),
    });
    await broken.ready;
  });

  afterAll(async () => {
    await broken?.dispose();
  });

  it('storage unreachable: 503 with Retry-After, never a decision', async () => {
    const answer = await call({ method: 'POST', path: '/login', body: JSON.stringify({ email: newEmail(), password: PASSWORD }), target: storageDown() });
    expect(answer).toMatchObject({ status: 503, body: { error: { code: 'temporarily_unavailable' } } });
    expect(answer.headers.get('retry-after')).toBe('2');
  });

  it('no signing key: 500 with a fixed body (the edge never generates a key), and a log line saying why', async () => {
    expect(await call({ path: '/.well-known/jwks.json', target: noSigningKey() })).toMatchObject({
      status: 500,
      body: { error: { code: 'internal_error', message: 'internal error' } },
    });
    expect(brokenLogLines.join('\n')).toMatch(/"name":"TokenConfigError".*PASSLANE_JWT_PRIVATE_KEY is not set, and workerd has no filesystem/);
  });

  it('public keys only: serves the JWKS and discovery, and nothing that signs or stores', async () => {
    expect(await call({ path: '/.well-known/jwks.json', target: publicKeysOnly() })).toMatchObject({ status: 200, body: publishedKeys });
    expect(await call({ path: '/.well-known/openid-configuration', target: publicKeysOnly() })).toMatchObject({
      status: 200,
      body: { jwks_uri: 'https://public-keys-only.test/.well-known/jwks.json', token_endpoint: 'https://public-keys-only.test/token' },
    });
    const login = await call({ method: 'POST', path: '/login', body: JSON.stringify({ email: newEmail(), password: PASSWORD }), target: publicKeysOnly() });
    expect(login).toMatchObject({ status: 500, body: { error: { code: 'internal_error' } } });
  });
});

it('logs audit events and rejections, builds dependencies once, and logs no password, email, hash, token or secret', () => {
  const lines = logLines.join('\n');
  expect(lines).toContain('"message":"auth.login_succeeded"');
  expect(lines).toContain('"message":"request rejected"');
  expect(lines.match(/dependencies built for this isolate/g)).toHaveLength(1);
  const secrets = [PASSWORD, WRONG_PASSWORD, '@example.com', '$argon2id$', 'eyJ', PEPPER_KEY, FINGERPRINT_KEY, bindings.PASSLANE_JWT_PRIVATE_KEY!];
  for (const secret of secrets) expect(lines.toLowerCase()).not.toContain(secret.toLowerCase());
});
