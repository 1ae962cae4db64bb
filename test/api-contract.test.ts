/**
 * One contract, six hosts: the same requests through Lambda (in-process events), the Node
 * server, workerd, Vercel's edge-runtime, Deno and Bun, each against dynalite on loopback. Every
 * answer must match openapi.yaml (status, body schema, required headers), and every host must
 * answer exactly as the Lambda functions do (status, error code, body fields, the headers a
 * client acts on). A route a host does not serve, or serves differently, fails here.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import { API_ROUTES } from '../src/api/routes/index.js';
import { createDynamoDbClient } from '../src/storage/dynamodb-client.js';
import { ensureTable } from '../src/storage/table.js';
import { generateSigningKey } from '../src/tokens/keys.js';
import { HOST_NAMES, startHost, type HostName, type HostRequest, type RunningHost } from './support/api-hosts.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { contractErrors, spec, type HttpAnswer } from './support/openapi.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'another long passphrase';
/** Failures of one email from one source before the next attempt must wait. */
const FAILURE_LIMIT = 2;
/** The headers a client acts on, compared across hosts (values that vary per request are compared by presence). */
const COMPARED_HEADERS = ['content-type', 'cache-control', 'allow', 'www-authenticate', 'x-content-type-options', 'x-frame-options', 'strict-transport-security'];

interface Step {
  label: string;
  request: HostRequest;
  status: number;
}

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The script every host runs: each route's success and each documented failure the host itself decides. */
async function runScript(host: RunningHost): Promise<Array<Step & { answer: HttpAnswer }>> {
  const email = `contract-${randomUUID()}@example.test`;
  const results: Array<Step & { answer: HttpAnswer }> = [];
  const step = async (label: string, status: number, request: HostRequest) => {
    const answer = await host.send(request);
    results.push({ label, request, status, answer });
    return answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const request = json(body);
    return { method: 'POST', path, headers: { ...request.headers, ...headers }, body: request.body };
  };

  await step('register', 201, post('/register', { email, password: PASSWORD }));
  await step('register again', 409, post('/register', { email, password: PASSWORD }));
  await step('register, bad email', 400, post('/register', { email: 'nope', password: PASSWORD }));
  await step('register, bad JSON', 400, post('/register', '{'));
  await step('register, body too large', 413, post('/register', { email, password: 'x'.repeat(9000) }));
  await step('register, not JSON', 415, { method: 'POST', path: '/register', headers: { 'content-type': 'text/plain' }, body: '{}' });
  await step('register, wrong method', 405, { method: 'GET', path: '/register' });
  const login = await step('login', 200, post('/login', { email, password: PASSWORD }));
  await step('login, wrong password', 401, post('/login', { email, password: 'wrong password here' }));
  await step('login, no password', 400, post('/login', { email }));
  await step('login, wrong method', 405, { method: 'PUT', path: '/login' });
  const bearer = { authorization: `Bearer ${String(login?.accessToken)}` };
  await step('password, no token', 401, post('/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }));
  await step('password, wrong current', 401, post('/password', { currentPassword: 'wrong password here', newPassword: NEW_PASSWORD }, bearer));
  await step('password', 204, post('/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bearer));
  // The good login clears the earlier failure from this source; two more reach the limit.
  await step('login, new password', 200, post('/login', { email, password: NEW_PASSWORD }));
  await step('login, wrong again', 401, post('/login', { email, password: 'wrong password here' }));
  await step('login, wrong at the limit', 401, post('/login', { email, password: 'wrong password here' }));
  await step('login, over the failure limit', 429, post('/login', { email, password: NEW_PASSWORD }));
  await step('jwks', 200, { method: 'GET', path: '/.well-known/jwks.json' });
  await step('jwks, wrong method', 405, { method: 'DELETE', path: '/.well-known/jwks.json' });
  await step('openid configuration', 200, { method: 'GET', path: '/.well-known/openid-configuration' });
  await step('unknown path', 404, { method: 'GET', path: '/nope' });
  return results;
}

/** What must be the same on every host. */
function comparable({ answer }: { answer: HttpAnswer }) {
  const body = answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
  const error = body?.error as { code?: string } | undefined;
  return {
    status: answer.statusCode,
    code: error?.code,
    fields: body === undefined ? [] : Object.keys(body).sort(),
    headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, answer.headers[name]])),
    retryAfter: answer.headers['retry-after'] !== undefined,
  };
}

let dynamo: RunningDynamoDb;
const transcripts = new Map<HostName, Awaited<ReturnType<typeof runScript>>>();

beforeAll(async () => {
  dynamo = await startDynalite();
});

afterAll(async () => {
  await dynamo?.stop();
});

describe.each(HOST_NAMES)('%s', (name) => {
  let host: RunningHost | undefined;

  beforeAll(async () => {
    const table = `contract-${name}-${randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table, { maxWaitSeconds: 10 });
    host = await startHost(name, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PASSLANE_TABLE: table,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('ES256')),
      PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: String(FAILURE_LIMIT),
      // Discovery names where the keys are; no host takes that from a request's Host header.
      PASSLANE_PUBLIC_URL: 'https://auth.passlane.test',
      // A secret wherever there is no data directory to generate one into (the edge hosts).
      PASSLANE_FINGERPRINT_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
  }, 90_000);

  afterAll(async () => {
    await host?.stop();
  });

  it('answers every step as openapi.yaml declares', async () => {
    const transcript = await runScript(host!);
    transcripts.set(name, transcript);
    expect(transcript.map(({ label, answer }) => [label, answer.statusCode])).toEqual(transcript.map(({ label, status }) => [label, status]));
    const problems = transcript
      .filter(({ request }) => request.path in spec.paths)
      .flatMap(({ label, request, answer }) => contractErrors(request.method, request.path, answer).map((problem) => `${label}: ${problem}`));
    expect(problems).toEqual([]);
    // Every route of the API was exercised, so a new route without a step here fails too.
    for (const route of API_ROUTES) {
      expect(transcript.some(({ request, answer }) => request.method === route.method && request.path === route.path && answer.statusCode < 300), route.name).toBe(true);
    }
  }, 120_000);

  it.runIf(name !== 'lambda')('answers exactly as the Lambda functions do', () => {
    const reference = transcripts.get('lambda');
    const own = transcripts.get(name);
    expect(reference, 'the lambda host ran first').toBeDefined();
    expect(own).toBeDefined();
    expect(own!.map((step) => ({ step: step.label, ...comparable(step) }))).toEqual(reference!.map((step) => ({ step: step.label, ...comparable(step) })));
  });
});
