/**
 * What the DynamoDB short path (packages/server/src/runtimes/lambda/direct-requests.ts) reads of the AWS SDK's internals,
 * pinned against the installed SDK, so an SDK upgrade that changes any of it fails here, saying
 * what changed, instead of in production: the @smithy packages it imports (the SDK's own copies,
 * at the versions packages/server/package.json pins), each field of the client's resolved configuration it reads
 * (and no other), the endpoint rules' parameters, the retry strategy's and the request handler's
 * interfaces, the middleware step it stands in, the error classification, the wire protocol the
 * SDK speaks to DynamoDB, and AWS SigV4 (checked here with node:crypto, apart from the signer).
 * test/direct-requests.test.ts checks its answers against the SDK's on real servers.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendItemRequestsDirectly } from '../packages/server/src/runtimes/lambda/direct-requests.js';
import { DYNAMODB_MAX_ATTEMPTS, dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The package that holds the short path, and pins what it shares with the SDK. */
const server = join(root, 'packages/server');
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' };
const input = { TableName: 'passlane', Key: { pk: { S: 'user#abc' } }, ConsistentRead: true };

interface Captured {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

// By its bytes: the SDK's body is a Uint8Array that answers string methods (and warns).
const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));

/** A client whose HTTP handler keeps each request and answers a fixed item: what goes out can be read. */
function capturingClient(config: DynamoDBClientConfig, options: { direct: boolean; readFields?: Set<string>; answer?: { status: number; body: string } }) {
  const sent: Captured[] = [];
  const { status, body } = options.answer ?? { status: 200, body: '{"Item":{"pk":{"S":"answer"}}}' };
  const requestHandler = {
    handle: async (request: Captured) => {
      sent.push(request);
      return { response: { statusCode: status, headers: { 'x-amzn-requestid': 'req-1' }, body: Readable.from([Buffer.from(body)]) } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const client = new DynamoDBClient({ ...config, credentials, requestHandler: requestHandler as never });
  if (options.direct) {
    // The short path sees the configuration through a recorder of the fields it reads.
    const read = options.readFields ?? new Set<string>();
    const config = new Proxy(client.config, {
      get: (target, field, receiver) => {
        if (typeof field === 'string') read.add(field);
        return Reflect.get(target, field, receiver) as unknown;
      },
    });
    sendItemRequestsDirectly({ config, middlewareStack: client.middlewareStack } as unknown as DynamoDBClient);
  }
  return { client, sent };
}

/** `name@version (path)` of a package as resolved from `from` (a file or a package directory). */
function resolvedPackage(name: string, from: string): { version: string; path: string } {
  const path = realpathSync(createRequire(join(from, 'noop.js')).resolve(`${name}/package.json`));
  return { version: (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version, path };
}

describe('the SDK internals the DynamoDB short path reads', () => {
  it('imports the SDK’s own copies of @smithy/core and @smithy/signature-v4, at the versions package.json pins', () => {
    const pins = (JSON.parse(readFileSync(join(server, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
    const client = dirname(resolvedPackage('@aws-sdk/client-dynamodb', server).path);
    // The DynamoDB client requires @smithy/core (retry, its error classification); its SigV4 signer
    // comes from @aws-sdk/core, which requires @smithy/signature-v4.
    const sdkCore = dirname(resolvedPackage('@aws-sdk/core', client).path);
    for (const [name, sdkSide, via] of [
      ['@smithy/core', client, '@aws-sdk/client-dynamodb'],
      ['@smithy/signature-v4', sdkCore, '@aws-sdk/core'],
    ] as const) {
      const ours = resolvedPackage(name, server);
      const theirs = resolvedPackage(name, sdkSide);
      expect(theirs.path, `${name}: the short path loads ${ours.version} (${ours.path}), the SDK (${via}) loads ${theirs.version} (${theirs.path}); pin ${theirs.version} in package.json`).toBe(ours.path);
      expect(pins[name], `${name}: package.json pins ${pins[name]}, the SDK loads ${theirs.version}`).toBe(theirs.version);
    }
  });

  it('reads only the resolved configuration fields pinned here, each of the shape it expects', async () => {
    const read = new Set<string>();
    // With an endpoint (a local server), and without (AWS: the endpoint rules).
    const local = capturingClient(dynamoDbClientConfig({ endpoint: 'http://127.0.0.1:8000' }), { direct: true, readFields: read });
    const aws = capturingClient({ ...dynamoDbClientConfig({ region: 'eu-west-1' }) }, { direct: true, readFields: read });
    for (const { client } of [local, aws]) expect((await client.send(new GetItemCommand(input))).Item).toEqual({ pk: { S: 'answer' } });

    const pinned = ['region', 'endpoint', 'credentials', 'sha256', 'endpointProvider', 'useFipsEndpoint', 'useDualstackEndpoint', 'systemClockOffset', 'requestHandler', 'streamCollector', 'retryStrategy'];
    expect([...read].filter((field) => !pinned.includes(field)), 'the short path reads client.config fields this test does not pin: pin their shape below').toEqual([]);

    const config = aws.client.config as unknown as Record<string, unknown>;
    const shape = (field: string, expected: string) => expect(typeof config[field], `client.config.${field}: the short path expects a ${expected}`);
    for (const field of ['region', 'credentials', 'endpointProvider', 'useFipsEndpoint', 'useDualstackEndpoint', 'streamCollector', 'retryStrategy']) shape(field, 'function').toBe('function');
    shape('sha256', 'hash constructor').toBe('function');
    shape('systemClockOffset', 'number (ms of clock skew)').toBe('number');
    expect(typeof (config.requestHandler as { handle?: unknown }).handle, 'client.config.requestHandler.handle: the short path sends through it').toBe('function');
    expect(await (config.region as () => Promise<unknown>)(), 'client.config.region() resolves the region').toBe('eu-west-1');
    expect(await (config.useFipsEndpoint as () => Promise<unknown>)(), 'client.config.useFipsEndpoint() resolves a boolean').toBe(false);
    expect(await (config.useDualstackEndpoint as () => Promise<unknown>)(), 'client.config.useDualstackEndpoint() resolves a boolean').toBe(false);
    expect(await (config.credentials as () => Promise<unknown>)(), 'client.config.credentials() resolves the credentials').toMatchObject({ accessKeyId: 'AKIDEXAMPLE' });
    const Sha256 = config.sha256 as new () => { update(data: string): void; digest(): Promise<Uint8Array> };
    const digest = new Sha256();
    digest.update('abc');
    expect(Buffer.from(await digest.digest()).toString('hex'), 'new client.config.sha256() is SHA-256').toBe(createHash('sha256').update('abc').digest('hex'));

    // An endpoint the caller gave is a function; none given leaves it undefined, and the endpoint rules decide.
    expect(config.endpoint, 'client.config.endpoint with no endpoint configured: the short path then asks the endpoint rules').toBeUndefined();
    const endpoint = (local.client.config as unknown as { endpoint: () => Promise<unknown> }).endpoint;
    expect(await endpoint(), 'client.config.endpoint() of a configured endpoint').toMatchObject({ protocol: 'http:', hostname: '127.0.0.1', port: 8000, path: '/' });
    const streamCollector = config.streamCollector as (body: unknown) => Promise<unknown>;
    const collected = await streamCollector(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]));
    expect(collected, 'client.config.streamCollector(stream) resolves the bytes').toBeInstanceOf(Uint8Array);
    expect(Buffer.from(collected as Uint8Array).toString('utf8')).toBe('{"a":1}');
  });

  it('passes every endpoint rule parameter the SDK’s item commands take that can apply to the functions', async () => {
    // The SDK's GetItem (and every item command's) endpoint parameters. The short path passes
    // Region, UseFIPS and UseDualStack, or uses the configured Endpoint. Not passed: AccountId and
    // AccountIdEndpointMode (account-based endpoints, which the SDK picks when the credentials
    // carry an account id; the regional endpoint serves every account), ResourceArn (a table
    // named by ARN; ours are names). A new parameter is a new way the SDK may pick an endpoint.
    const parameters = Object.keys(GetItemCommand.getEndpointParameterInstructions()).sort();
    expect(parameters, 'the endpoint rules take other parameters than the short path accounts for').toEqual(
      ['AccountId', 'AccountIdEndpointMode', 'Endpoint', 'Region', 'ResourceArn', 'UseDualStack', 'UseFIPS'].sort(),
    );
    const { config } = new DynamoDBClient({ region: 'eu-west-1', credentials });
    const url = (params: { Region: string; UseFIPS: boolean; UseDualStack: boolean }) => config.endpointProvider(params).url.hostname;
    expect(url({ Region: 'eu-west-1', UseFIPS: false, UseDualStack: false })).toBe('dynamodb.eu-west-1.amazonaws.com');
    expect(url({ Region: 'eu-west-1', UseFIPS: true, UseDualStack: false }), 'UseFIPS is no longer read by the endpoint rules').toBe('dynamodb-fips.eu-west-1.amazonaws.com');
    expect(url({ Region: 'us-east-1', UseFIPS: false, UseDualStack: true }), 'UseDualStack is no longer read by the endpoint rules').toBe('dynamodb.us-east-1.api.aws');
    expect(url({ Region: 'cn-north-1', UseFIPS: false, UseDualStack: false })).toBe('dynamodb.cn-north-1.amazonaws.com.cn');
  });

  it('retries through the retry strategy’s interface as the short path calls it', async () => {
    const client = new DynamoDBClient({ ...dynamoDbClientConfig({ region: 'eu-west-1' }), credentials });
    const strategy = (await (client.config as unknown as { retryStrategy: () => Promise<Record<string, unknown>> }).retryStrategy()) as {
      acquireInitialRetryToken(scope: string): Promise<{ getRetryCount(): number; getRetryDelay(): number }>;
      refreshRetryTokenForRetry(token: unknown, info: { errorType: string; error: unknown }): Promise<{ getRetryCount(): number; getRetryDelay(): number }>;
      recordSuccess(token: unknown): void;
    };
    for (const method of ['acquireInitialRetryToken', 'refreshRetryTokenForRetry', 'recordSuccess'] as const) {
      expect(typeof strategy[method], `retryStrategy().${method}: the short path calls it`).toBe('function');
    }
    const error = Object.assign(new Error('throttled'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    let token = await strategy.acquireInitialRetryToken('dynamodb');
    expect(token.getRetryCount(), 'a first attempt’s token counts no retries').toBe(0);
    for (let attempt = 2; attempt <= DYNAMODB_MAX_ATTEMPTS; attempt++) {
      // TRANSIENT: the shorter backoff (this strategy waits it inside refreshRetryTokenForRetry).
      token = await strategy.refreshRetryTokenForRetry(token, { errorType: 'TRANSIENT', error });
      expect(token.getRetryCount()).toBe(attempt - 1);
      // What the SDK's retry middleware waits after refreshing, and so does the short path.
      expect(token.getRetryDelay(), 'getRetryDelay(): ms to wait before the next attempt').toBeGreaterThanOrEqual(0);
    }
    // Past the attempts, refreshing rejects: the short path then answers the last error.
    await expect(strategy.refreshRetryTokenForRetry(token, { errorType: 'THROTTLING', error }), 'a retry past maxAttempts is refused').rejects.toThrow();
    strategy.recordSuccess(token);
    client.destroy();
  });

  it('makes errors that the SDK’s retry classification reads as it reads the SDK’s own', async () => {
    // Errors as the short path makes them, from answers of one attempt each.
    const errorFor = async (status: number, body: string) => {
      const { client } = capturingClient({ ...dynamoDbClientConfig({ endpoint: 'http://127.0.0.1:8000' }), maxAttempts: 1 }, { direct: true, answer: { status, body } });
      const error = await client.send(new GetItemCommand(input)).then(() => undefined, (thrown: unknown) => thrown as Error);
      client.destroy();
      if (error === undefined) throw new Error(`an answer of ${status} was not an error`);
      return error;
    };
    const answered = (type: string, status: number) => errorFor(status, JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: 'pinned' }));
    const kinds = (error: Error) => {
      const e = error as Parameters<typeof isThrottlingError>[0];
      return [isThrottlingError(e) && 'throttling', isTransientError(e) && 'transient', isServerError(e) && 'server'].filter(Boolean);
    };
    const cases: Array<[string, Error, string[]]> = [
      ['ProvisionedThroughputExceededException (400)', await answered('ProvisionedThroughputExceededException', 400), ['throttling']],
      ['ThrottlingException (400)', await answered('ThrottlingException', 400), ['throttling']],
      ['RequestLimitExceeded (400)', await answered('RequestLimitExceeded', 400), ['throttling']],
      ['InternalServerError (500)', await answered('InternalServerError', 500), ['transient']],
      ['a proxy’s 503 page', await errorFor(503, '<html>unavailable</html>'), ['transient']],
      ['a 501 without a type', await errorFor(501, ''), ['server']],
      ['ConditionalCheckFailedException (400)', await answered('ConditionalCheckFailedException', 400), []],
      ['ValidationException (400)', await answered('ValidationException', 400), []],
    ];
    for (const [what, error, expected] of cases) expect(kinds(error), `@smithy/core/retry classifies ${what} otherwise`).toEqual(expected);
  });

  it('stands before the SDK’s serializer, told the command’s name', async () => {
    const { client } = capturingClient(dynamoDbClientConfig({ endpoint: 'http://127.0.0.1:8000' }), { direct: true });
    const seen: string[] = [];
    const probe = (step: 'initialize' | 'serialize') =>
      client.middlewareStack.add(
        ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
          seen.push(`${step} ${context.commandName}`);
          return next(args);
        }) as never,
        { step: step as 'initialize', priority: 'high', name: `pin-${step}` },
      );
    probe('initialize');
    probe('serialize');
    expect(client.middlewareStack.identify(), 'the short path is an initialize-step middleware').toContain('passlaneDirectRequests - initialize');
    await client.send(new GetItemCommand(input));
    expect(seen, 'an initialize middleware sees context.commandName, and the short path answers before the serialize step').toEqual(['initialize GetItemCommand']);
    client.destroy();
  });

  it('sends what the SDK sends DynamoDB (JSON 1.0, the target header, the input as body), SigV4-signed', async () => {
    const date = /^\d{8}T\d{6}Z$/;
    const sdk = capturingClient({ region: 'eu-west-1' }, { direct: false });
    const direct = capturingClient({ region: 'eu-west-1' }, { direct: true });
    await sdk.client.send(new GetItemCommand(input));
    await direct.client.send(new GetItemCommand(input));
    const [viaSdk, viaDirect] = [sdk.sent[0]!, direct.sent[0]!];
    const wire = (request: Captured) => ({
      method: request.method,
      url: `${request.protocol}//${request.hostname}${request.path}`,
      'content-type': request.headers['content-type'],
      'x-amz-target': request.headers['x-amz-target'],
      body: JSON.parse(text(request.body)) as unknown,
    });
    expect(wire(viaDirect), 'the SDK no longer sends DynamoDB what the short path sends').toEqual(wire(viaSdk));
    expect(viaDirect.headers['x-amz-date']).toMatch(date);
    expect(verifySigV4(viaDirect, { region: 'eu-west-1', service: 'dynamodb', ...credentials }), 'the short path’s SigV4 signature').toBe(true);
    // The same check accepts the SDK's own request: it checks SigV4, not the short path's form of it.
    expect(verifySigV4(viaSdk, { region: 'eu-west-1', service: 'dynamodb', ...credentials })).toBe(true);
    sdk.client.destroy();
    direct.client.destroy();
  });
});

describe('the request handler the short path sends through', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'x-amzn-requestid': 'pinned', 'content-type': 'application/x-amz-json-1.0' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('takes the request as the short path builds it and answers { response: { statusCode, headers, body } }', async () => {
    const client = new DynamoDBClient({ ...dynamoDbClientConfig({ endpoint: `http://127.0.0.1:${port}` }) });
    const { requestHandler, streamCollector } = client.config as unknown as {
      requestHandler: { handle(request: unknown): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: unknown } }> };
      streamCollector(body: unknown): Promise<Uint8Array>;
    };
    const body = '{}';
    const { response } = await requestHandler.handle({
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      path: '/',
      query: {},
      headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/x-amz-json-1.0', 'content-length': String(body.length) },
      body,
    });
    expect(response.statusCode, 'requestHandler.handle(request) resolves { response: { statusCode } }').toBe(200);
    expect(response.headers['x-amzn-requestid'], 'response.headers, lower-cased').toBe('pinned');
    expect(Buffer.from(await streamCollector(response.body)).toString('utf8'), 'response.body, read by streamCollector').toBe('{"ok":true}');
    client.destroy();
  });
});

/** AWS Signature Version 4, checked from the spec (a POST to `/`, no query), independently of @smithy/signature-v4. */
function verifySigV4(request: Captured, key: { region: string; service: string; secretAccessKey: string; accessKeyId: string }): boolean {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(request.headers.authorization ?? '');
  if (match === null) return false;
  const [, accessKeyId, day, region, service, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== key.accessKeyId || region !== key.region || service !== key.service) return false;
  const names = signedHeaders!.split(';');
  // What must be signed for DynamoDB: the host, the date, the operation, the body's type and the session token.
  if (!['host', 'x-amz-date', 'x-amz-target', 'content-type', 'x-amz-security-token'].every((name) => names.includes(name))) return false;
  const header = (name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? '';
  const hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
  const canonical = [request.method, request.path, '', ...names.map((name) => `${name}:${header(name).trim().replace(/\s+/g, ' ')}`), '', signedHeaders, hex(request.body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', header('x-amz-date'), scope, hex(canonical)].join('\n');
  const hmac = (secret: string | Buffer, data: string) => createHmac('sha256', secret).update(data).digest();
  const signingKey = [day!, region!, service!, 'aws4_request'].reduce<Buffer | string>((k, part) => hmac(k, part), `AWS4${key.secretAccessKey}`);
  return createHmac('sha256', signingKey).update(toSign).digest('hex') === signature;
}
