import { randomBytes } from 'node:crypto';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSecrets, SecretLoadError, SecretsUnavailableError, type SecretSource } from '../packages/server/src/runtimes/lambda/load-secrets.js';
import { createSsmSecretSource, ssmClientConfig } from '../packages/server/src/runtimes/lambda/ssm-secret-source.js';
import { publicJwks } from '../packages/server/src/features/tokens/jwks.js';
import { createKeyring, generateSigningKey } from '../packages/server/src/features/tokens/keys.js';
import type { TokenService } from '../packages/server/src/features/tokens/token-service.js';
import { freePort } from './support/dynamodb-servers.js';
import { lambdaContext } from './support/lambda-context.js';
import { startLocalSsmEndpoint, type LocalSsmEndpoint } from './support/local-ssm-endpoint.js';

const PEPPER_PARAMETER = '/passlane/test/pepper-keys';
const JWT_PARAMETER = '/passlane/test/jwt-private-key';
const pepperKeys = `k1:${randomBytes(32).toString('base64')}`;
let jwtKey: string;
let ssm: LocalSsmEndpoint;

beforeAll(async () => {
  jwtKey = JSON.stringify(await generateSigningKey('RS256'));
  ssm = await startLocalSsmEndpoint({ [PEPPER_PARAMETER]: pepperKeys, [JWT_PARAMETER]: jwtKey });
});

afterAll(async () => {
  await ssm?.stop();
});

beforeEach(() => {
  ssm.requests.length = 0;
});

// Tests that play a Lambda container set process.env and load fresh modules; each starts clean.
const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
  vi.resetModules();
});

/** A deployed container's env: local AWS credentials, SSM at `ssmEndpoint`, a DynamoDB never contacted. */
function deployContainer(ssmEndpoint: string, variables: Record<string, string>): void {
  vi.resetModules();
  Object.assign(process.env, {
    // The SDK's own per-service endpoint override, as on any machine; here it points at the stand-in.
    AWS_ENDPOINT_URL_SSM: ssmEndpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', // never contacted: building the dependencies does no I/O
    // Plain here (the SSM path is the same for every secret): nothing is generated into .data/.
    PASSLANE_FINGERPRINT_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
    ...variables,
  });
}

function localSsmClient(endpoint = ssm.endpoint): SSMClient {
  return new SSMClient(
    ssmClientConfig({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' } }),
  );
}

describe('loadSecrets', () => {
  it('returns env untouched and creates no source when no _PARAMETER is set (local runs)', async () => {
    const env = { PASSLANE_PEPPER_KEYS: pepperKeys, PASSLANE_TABLE: 't' };
    const createSource = vi.fn<() => SecretSource>();
    expect(await loadSecrets(env, createSource)).toBe(env);
    expect(createSource).not.toHaveBeenCalled();
  });

  it('refuses a variable set both as a value and as a parameter name', async () => {
    const env = { PASSLANE_PEPPER_KEYS: pepperKeys, PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER };
    const error = await loadSecrets(env, () => ({ get: async () => 'x' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecretLoadError);
    expect(String(error)).not.toContain(pepperKeys);
  });
});

describe('SSM secret source against a local GetParameter endpoint', () => {
  it('fills in each secret named by a _PARAMETER, decrypted, with signed requests', async () => {
    const env = await loadSecrets(
      { PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER, PASSLANE_JWT_PRIVATE_KEY_PARAMETER: JWT_PARAMETER, OTHER: 'kept' },
      () => createSsmSecretSource(localSsmClient()),
    );
    expect(env.PASSLANE_PEPPER_KEYS).toBe(pepperKeys);
    expect(env.PASSLANE_JWT_PRIVATE_KEY).toBe(jwtKey);
    expect(env.OTHER).toBe('kept');
    expect(ssm.requests).toHaveLength(2);
    for (const request of ssm.requests) {
      expect(request.target).toBe('AmazonSSM.GetParameter');
      expect(request.body.WithDecryption).toBe(true);
      expect(request.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/ssm\/aws4_request/);
    }
    expect(ssm.requests.map((request) => request.body.Name).sort()).toEqual([JWT_PARAMETER, PEPPER_PARAMETER].sort());
  });

  it('names the variable and parameter of a missing secret, and no value', async () => {
    const error = await loadSecrets(
      { PASSLANE_PEPPER_KEYS_PARAMETER: '/passlane/test/missing' },
      () => createSsmSecretSource(localSsmClient()),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecretLoadError);
    expect((error as Error).message).toBe('could not read PASSLANE_PEPPER_KEYS from parameter /passlane/test/missing');
    expect(((error as Error).cause as Error).name).toBe('ParameterNotFound');
    // A refusal is a deployment to fix, not an outage to wait out.
    expect(error).not.toBeInstanceOf(SecretsUnavailableError);
    expect(ssm.requests).toHaveLength(1); // ParameterNotFound is final: no retries
  });
});

describe('SSM unreachable', () => {
  it('is SecretsUnavailableError, naming the variable and parameter', async () => {
    const client = localSsmClient(`http://127.0.0.1:${await freePort()}`);
    const error = await loadSecrets({ PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER }, () => createSsmSecretSource(client)).catch((caught: unknown) => caught);
    client.destroy();
    expect(error).toBeInstanceOf(SecretsUnavailableError);
    expect((error as Error).message).toBe(`could not read PASSLANE_PEPPER_KEYS from parameter ${PEPPER_PARAMETER}`);
  });

  it('answers a cold login 503 with Retry-After, never 500, and the next invocation tries again', async () => {
    deployContainer(`http://127.0.0.1:${await freePort()}`, {
      PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER,
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: JWT_PARAMETER,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    delete process.env.PASSLANE_PEPPER_KEYS;
    delete process.env.PASSLANE_JWT_PRIVATE_KEY;
    const { handler } = await import('../functions/login.js');
    const event = {
      version: '2.0',
      routeKey: 'POST /login',
      rawPath: '/login',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      requestContext: { http: { method: 'POST', path: '/login', sourceIp: '192.0.2.1' }, requestId: 'r1' },
      body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery staple' }),
      isBase64Encoded: false,
    };
    const first = await handler(event as never, lambdaContext());
    expect(first.statusCode).toBe(503);
    expect(JSON.parse(first.body)).toEqual({ error: { code: 'temporarily_unavailable', message: expect.any(String) } });
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Not cached as a failure: the same container asks SSM again on its next invocation.
    process.env.AWS_ENDPOINT_URL_SSM = ssm.endpoint;
    await handler(event as never, lambdaContext());
    expect(ssm.requests.map((request) => request.body.Name).sort()).toEqual([JWT_PARAMETER, PEPPER_PARAMETER].sort());
  });
});

/** What a function entry (functions/*.ts) builds its service from: the secrets from SSM, once per container, and the wiring. */
async function containerModules() {
  const [{ configWithSecrets }, wiring, { nodePlatform, nodePlatformWithoutBlocklist }] = await Promise.all([
    import('../packages/server/src/runtimes/lambda/secret-env.js'),
    import('../packages/server/src/wiring/build-dependencies.js'),
    import('../packages/server/src/runtimes/node/node-platform.js'),
  ]);
  return { configWithSecrets, wiring, nodePlatform, nodePlatformWithoutBlocklist };
}

describe('a function on a deployment that names parameters', () => {
  it('fetches each secret once per container through the default SSM client', async () => {
    deployContainer(ssm.endpoint, {
      PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER,
      PASSLANE_JWT_PRIVATE_KEY_PARAMETER: JWT_PARAMETER,
    });
    delete process.env.PASSLANE_PEPPER_KEYS;
    delete process.env.PASSLANE_JWT_PRIVATE_KEY;
    const { configWithSecrets, wiring, nodePlatformWithoutBlocklist } = await containerModules();
    const [config, again] = await Promise.all([configWithSecrets(), configWithSecrets()]);
    expect(again).toEqual(config);
    const deps = await wiring.buildLoginDependencies(await configWithSecrets(), nodePlatformWithoutBlocklist);
    expect((deps.tokens as TokenService).jwks().keys[0]?.kid).toBe((JSON.parse(jwtKey) as { kid: string }).kid);
    expect(deps.hasher.describe(await deps.hasher.hash('correct horse battery')).pepperKeyId).toBe('k1');
    expect(ssm.requests.map((request) => request.body.Name).sort()).toEqual([JWT_PARAMETER, PEPPER_PARAMETER].sort());
    expect(process.env.PASSLANE_PEPPER_KEYS).toBeUndefined();
  });

  it('builds register and the JWKS service as deployed: no signing key named, none needed', async () => {
    const publicKeys = JSON.stringify(publicJwks(await createKeyring(JSON.parse(jwtKey))));
    deployContainer(ssm.endpoint, {
      PASSLANE_PEPPER_KEYS_PARAMETER: PEPPER_PARAMETER,
      PASSLANE_JWT_PUBLIC_KEYS: publicKeys,
      AWS_LAMBDA_FUNCTION_NAME: 'passlane-register', // no local key file: a token service would throw
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    for (const name of ['PASSLANE_PEPPER_KEYS', 'PASSLANE_JWT_PRIVATE_KEY', 'PASSLANE_JWT_PRIVATE_KEY_PARAMETER']) delete process.env[name];
    const { configWithSecrets, wiring, nodePlatform, nodePlatformWithoutBlocklist } = await containerModules();
    const registerDeps = await wiring.buildRegisterDependencies(await configWithSecrets(), nodePlatform);
    expect(registerDeps).not.toHaveProperty('tokens');
    expect(registerDeps.hasher.describe(await registerDeps.hasher.hash('correct horse battery')).pepperKeyId).toBe('k1');
    const { handler: jwks } = await import('../functions/jwks.js');
    const answer = await jwks(
      { version: '2.0', rawPath: '/.well-known/jwks.json', rawQueryString: '', headers: {}, requestContext: { http: { method: 'GET', path: '/.well-known/jwks.json', sourceIp: '192.0.2.1' }, requestId: 'r1' }, isBase64Encoded: false } as never,
      lambdaContext(),
    );
    expect(JSON.parse(answer.body)).toEqual(JSON.parse(publicKeys));
    // The full service (login, password) still needs its key.
    await expect(wiring.buildLoginDependencies(await configWithSecrets(), nodePlatformWithoutBlocklist)).rejects.toMatchObject({ code: 'ERR_TOKEN_CONFIG' });
    expect(ssm.requests.map((request) => request.body.Name)).toEqual([PEPPER_PARAMETER]);
  });
});
