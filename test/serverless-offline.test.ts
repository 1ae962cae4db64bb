/**
 * `npm run offline` (scripts/offline/start-offline.ts) on a copy of serverless.yml with one more
 * function, `probe`, that answers with its own environment and the authorizer context its event
 * carries: login's environment, and three routes (none, passlaneJwt, passlaneSession), as a team's
 * own function would name them. serverless-offline starts once for the file, over dynalite. The
 * contract suite (test/api-contract.test.ts) runs every route of the API through it too.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { decodeJwt } from 'jose';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerlessOffline, type OfflineServer } from '../scripts/offline/start-offline.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { repoRoot } from './support/packaging.js';

const PASSWORD = 'correct horse battery staple';
/** The secrets a deployment reads from SSM: the probe says whether it has them, never what they are. */
const SECRETS = ['PASSLANE_PEPPER_KEYS', 'PASSLANE_JWT_PRIVATE_KEY', 'PASSLANE_FINGERPRINT_KEY', 'PASSLANE_MIGRATION_SECRET'];

/** A function of the team's: its PASSLANE_ variables (secrets as "(set)") and the authorizer context API Gateway gave it. */
const PROBE = `const SECRETS = new Set(${JSON.stringify(SECRETS)});
export const handler = async (event) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    variables: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('PASSLANE_')).map(([name, value]) => [name, SECRETS.has(name) ? '(set)' : value])),
    authorizer: event.requestContext.authorizer ?? null,
  }),
});
`;

let dynamo: RunningDynamoDb;
let serviceDir: string;
let server: OfflineServer;
let output = '';

/** serverless.yml with `probe`: login's environment, and a route per way of authorizing. */
async function serviceWithProbe(dir: string): Promise<void> {
  await cp(join(repoRoot, 'infra'), join(dir, 'infra'), { recursive: true });
  const service = parseDocument(await readFile(join(repoRoot, 'serverless.yml'), 'utf8'));
  const loginEnvironment = service.getIn(['functions', 'login', 'environment']);
  service.setIn(['functions', 'probe'], {
    handler: 'index.handler',
    package: { artifact: 'probe.zip' },
    environment: loginEnvironment,
    events: [
      { httpApi: { method: 'GET', path: '/probe' } },
      { httpApi: { method: 'GET', path: '/probe/jwt', authorizer: { name: 'passlaneJwt' } } },
      { httpApi: { method: 'GET', path: '/probe/session', authorizer: { name: 'passlaneSession' } } },
    ],
  });
  await writeFile(join(dir, 'serverless.yml'), service.toString());
  await writeFile(join(dir, 'probe.zip'), zipSync({ 'index.mjs': new TextEncoder().encode(PROBE) }));
}

beforeAll(async () => {
  dynamo = await startDynalite();
  serviceDir = await mkdtemp(join(tmpdir(), 'passlane-offline-'));
  await serviceWithProbe(serviceDir);
  server = await startServerlessOffline({
    serviceDir,
    dataDir: join(serviceDir, 'data'),
    port: 0,
    lambdaPort: 0,
    dynamoDbEndpoint: dynamo.endpoint,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), POWERTOOLS_METRICS_DISABLED: 'true' },
    // The authorizer's verdict cache off (5 s by default), so a logout shows at once, not within 5 s.
    params: { loginFailuresPerAccountSource: '7', authorizerCacheSeconds: '0' },
    output: (chunk) => (output += chunk),
  });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await dynamo?.stop();
  if (serviceDir) await rm(serviceDir, { recursive: true, force: true });
});

interface Probe {
  variables: Record<string, string>;
  authorizer: { jwt?: { claims?: Record<string, unknown> }; lambda?: Record<string, unknown> } | null;
}

const get = (path: string, token?: string) => fetch(`${server.url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
const post = (path: string, body: unknown, token?: string) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
async function probe(path: string, token?: string): Promise<{ status: number; body: Probe | undefined }> {
  const response = await get(path, token);
  return { status: response.status, body: response.status === 200 ? ((await response.json()) as Probe) : (await response.body?.cancel(), undefined) };
}

describe('npm run offline: serverless.yml in serverless-offline', () => {
  it('gives a function the environment a deployment would: no "null", the table by name, secrets instead of their parameters', async () => {
    const { status, body } = await probe('/probe');
    expect(status).toBe(200);
    const variables = body!.variables;
    // An optional setting nobody gave does not exist; one given is its value.
    expect(Object.entries(variables).filter(([, value]) => value === 'null' || value.startsWith('[object'))).toEqual([]);
    expect(variables).not.toHaveProperty('PASSLANE_LOGIN_LIMIT_PER_IP');
    expect(variables).not.toHaveProperty('PASSLANE_MIGRATION_URL');
    expect(variables.PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE).toBe('7');
    // The table: the plain name serverless.yml gives it, the one the runner created.
    expect(variables.PASSLANE_TABLE).toBe('passlane-dev-users');
    expect(server.table).toBe('passlane-dev-users');
    // Local values in place of the SSM parameters, where serverless.yml names them (login's: no migration secret).
    expect(Object.keys(variables).filter((name) => name.endsWith('_PARAMETER'))).toEqual([]);
    expect(Object.fromEntries(SECRETS.map((name) => [name, variables[name]]))).toEqual({
      PASSLANE_PEPPER_KEYS: '(set)',
      PASSLANE_JWT_PRIVATE_KEY: '(set)',
      PASSLANE_FINGERPRINT_KEY: '(set)',
      PASSLANE_MIGRATION_SECRET: undefined,
    });
    // What CloudFormation would fill in: the issuer (the API's own URL), the public keys, no SES identity without a sender.
    expect(variables.PASSLANE_JWT_ISSUER).toBe(server.url);
    expect(JSON.parse(variables.PASSLANE_JWT_PUBLIC_KEYS!)).toMatchObject({ keys: [{ kty: 'RSA', use: 'sig' }] });
    expect(variables.PASSLANE_SES_IDENTITY_ARN).toBe('');
    // Passkeys on as npm start has them: the relying party a page on localhost answers to.
    expect(variables.PASSLANE_WEBAUTHN_RP_ID).toBe('localhost');
    expect(variables.PASSLANE_WEBAUTHN_ORIGINS).toBe(`http://localhost:${new URL(server.url).port}`);
  });

  it('answers passkey login options for localhost without a --param', async () => {
    const response = await post('/passkey/login/options', undefined);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
  });

  it('serves both authorizers to a route that names one; passlaneSession shuts a logged-out token out, passlaneJwt does not', async () => {
    const email = `offline-${crypto.randomUUID()}@example.test`;
    expect((await post('/register', { email, password: PASSWORD })).status).toBe(201);
    const login = await post('/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    // The device cookie passes through as the function wrote it (infra/offline-set-cookie.mjs).
    expect(login.headers.get('set-cookie')).toMatch(/^__Host-passlane-device-[^=]+=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const { sub, sid } = decodeJwt(accessToken);

    const jwt = await probe('/probe/jwt', accessToken);
    expect(jwt.status).toBe(200);
    expect(jwt.body!.authorizer?.jwt?.claims).toMatchObject({ sub, sid, iss: server.url, aud: 'passlane-api' });
    const session = await probe('/probe/session', accessToken);
    expect(session.status).toBe(200);
    expect(session.body!.authorizer?.lambda).toMatchObject({ sub, sid });

    expect((await probe('/probe/jwt')).status).toBe(401);
    expect((await probe('/probe/session')).status).toBe(401);

    // serverless-offline checks no signature (--ignoreJWTSignature): a forged token passes the JWT
    // authorizer here, never the session authorizer, which is our function and verifies it.
    const [header, payload] = accessToken.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(342)}`;
    expect((await probe('/probe/jwt', forged)).status).toBe(200);
    expect((await probe('/probe/session', forged)).status).toBe(403);

    expect((await post('/logout', {}, accessToken)).status).toBe(204);
    expect((await probe('/probe/session', accessToken)).status).toBe(403);
    // As deployed: API Gateway's JWT authorizer cannot know of the logout (infra/README.md).
    expect((await probe('/probe/jwt', accessToken)).status).toBe(200);
  }, 60_000);

  it('prints no password, token or key', async () => {
    const secrets = [PASSWORD, ...(await Promise.all(['jwt-signing-key.json', 'fingerprint-key', 'pepper-keys'].map((file) => readFile(join(server.dataDir, file), 'utf8'))))];
    const signingKey = JSON.parse(secrets[1]!) as { d: string };
    for (const secret of [PASSWORD, signingKey.d, secrets[2]!.trim(), secrets[3]!.trim().split(':')[1]!]) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
  });
});
