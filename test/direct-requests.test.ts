/**
 * The short path for item requests (packages/server/src/runtimes/lambda/direct-requests.ts) against both real servers:
 * every operation it serves answers what the SDK's full path answers, errors carry the SDK's
 * names and fields, and the SDK's retry strategy decides retries (through a fault-injecting
 * proxy in front of dynalite).
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBServiceException,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ResourceNotFoundException,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendItemRequestsDirectly } from '../packages/server/src/runtimes/lambda/direct-requests.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { newLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { readLambdaFastPaths } from '../packages/server/src/runtimes/lambda/fast-paths.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';

type Item = Record<string, AttributeValue>;

/** Counts the commands that reach the SDK's serialize step, i.e. that the short path left to the SDK. */
function countSerialized(client: DynamoDBClient): string[] {
  const names: string[] = [];
  client.middlewareStack.add(
    ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
      names.push(String(context.commandName));
      return next(args);
    }) as never,
    { step: 'serialize', name: 'testCountSerialized' },
  );
  return names;
}

/** What an answer holds apart from its request metadata. */
const withoutMetadata = (output: object) => Object.fromEntries(Object.entries(output).filter(([key]) => key !== '$metadata'));

const everyType = (pk: string): Item => ({
  pk: { S: pk },
  text: { S: 'héllo ✓' },
  number: { N: '12.5' },
  bytes: { B: new Uint8Array([0, 1, 2, 250, 255]) },
  byteSet: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
  flag: { BOOL: true },
  nothing: { NULL: true },
  list: { L: [{ S: 'a' }, { N: '1' }, { M: { B: { S: 'a map entry named B' } } }] },
  map: { M: { nested: { M: { deep: { BOOL: false } } } } },
  strings: { SS: ['x', 'y'] },
  numbers: { NS: ['1', '2'] },
});

describe.each(dynamoDbServers)('direct item requests on $name', ({ name, start }) => {
  let server: RunningDynamoDb;
  let sdk: DynamoDBClient;
  let direct: DynamoDBClient;
  let leftToSdk: string[];
  const table = `direct-${randomUUID()}`;

  beforeAll(async () => {
    server = await start();
    sdk = new DynamoDBClient(dynamoDbClientConfig({ endpoint: server.endpoint }));
    direct = newLambdaDynamoDbClient({ endpoint: server.endpoint }, true);
    leftToSdk = countSerialized(direct);
    await ensureTable(sdk, table);
  });

  afterAll(async () => {
    sdk?.destroy();
    direct?.destroy();
    await server?.stop();
  });

  it('answers every item operation as the SDK does, without going through the SDK', async () => {
    // Each client writes its own item; both then read both, so each answer is compared across paths.
    const [mine, theirs] = [`direct#${randomUUID()}`, `sdk#${randomUUID()}`];
    await direct.send(new PutItemCommand({ TableName: table, Item: everyType(mine) }));
    await sdk.send(new PutItemCommand({ TableName: table, Item: everyType(theirs) }));

    for (const pk of [mine, theirs]) {
      const get = new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true });
      const [viaDirect, viaSdk] = [await direct.send(get), await sdk.send(get)];
      expect(withoutMetadata(viaDirect)).toEqual(withoutMetadata(viaSdk));
      expect(viaDirect.Item?.bytes?.B).toEqual(new Uint8Array([0, 1, 2, 250, 255]));
      expect(viaDirect.Item).toEqual(everyType(pk));
    }

    const update = (pk: string) =>
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: pk } },
        UpdateExpression: 'SET #n = #n + :one, #b = :bytes',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#n': 'number', '#b': 'bytes' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':bytes': { B: new Uint8Array([9, 9]) } },
        ReturnValues: 'ALL_NEW',
      });
    const [updatedDirect, updatedSdk] = [await direct.send(update(mine)), await sdk.send(update(theirs))];
    expect(updatedDirect.Attributes?.number).toEqual({ N: '13.5' });
    expect({ ...updatedDirect.Attributes, pk: undefined }).toEqual({ ...updatedSdk.Attributes, pk: undefined });

    const batch = new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [{ pk: { S: mine } }, { pk: { S: theirs } }], ConsistentRead: true } } });
    const byKey = (items: Item[] | undefined) => Object.fromEntries((items ?? []).map((item) => [item.pk?.S, item]));
    const [batchDirect, batchSdk] = [await direct.send(batch), await sdk.send(batch)];
    expect(byKey(batchDirect.Responses?.[table])).toEqual(byKey(batchSdk.Responses?.[table]));
    expect(Object.keys(byKey(batchDirect.Responses?.[table])).sort()).toEqual([mine, theirs].sort());

    const query = new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: mine } }, ConsistentRead: true });
    const [queryDirect, querySdk] = [await direct.send(query), await sdk.send(query)];
    expect(withoutMetadata(queryDirect)).toEqual(withoutMetadata(querySdk));
    expect(queryDirect.Count).toBe(1);

    const removed = await direct.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: mine } }, ReturnValues: 'ALL_OLD' }));
    expect(removed.Attributes?.pk).toEqual({ S: mine });
    expect((await direct.send(new GetItemCommand({ TableName: table, Key: { pk: { S: mine } }, ConsistentRead: true }))).Item).toBeUndefined();
    expect(removed.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1 });

    // None of those reached the SDK's serializer; an operation the short path does not serve does.
    expect(leftToSdk).toEqual([]);
    expect((await direct.send(new DescribeTableCommand({ TableName: table }))).Table?.TableName).toBe(table);
    expect(leftToSdk).toEqual(['DescribeTableCommand']);
    leftToSdk.length = 0;
  });

  it('names DynamoDB errors as the SDK does, with their fields', async () => {
    const pk = `taken#${randomUUID()}`;
    await sdk.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, owner: { S: 'first' } } }));
    const conditional = new PutItemCommand({
      TableName: table,
      Item: { pk: { S: pk }, owner: { S: 'second' } },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Error & Record<string, unknown>);
    const [viaDirect, viaSdk] = [await errorOf(direct.send(conditional)), await errorOf(sdk.send(conditional))];
    expect(viaDirect?.name).toBe('ConditionalCheckFailedException');
    expect(viaDirect?.name).toBe(viaSdk?.name);
    // The SDK's own classes, so that callers' `instanceof` checks hold on either path.
    expect(viaDirect).toBeInstanceOf(ConditionalCheckFailedException);
    expect(Object.getPrototypeOf(viaDirect)).toBe(Object.getPrototypeOf(viaSdk));
    expect(viaDirect?.Item).toEqual(viaSdk?.Item);
    // dynalite predates ReturnValuesOnConditionCheckFailure and answers without the item.
    if (name !== 'dynalite') expect(viaDirect?.Item).toEqual({ pk: { S: pk }, owner: { S: 'first' } });
    expect(viaDirect?.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });

    const missing = new GetItemCommand({ TableName: `missing-${randomUUID()}`, Key: { pk: { S: 'x' } } });
    const [missingDirect, missingSdk] = [await errorOf(direct.send(missing)), await errorOf(sdk.send(missing))];
    expect(missingDirect?.name).toBe('ResourceNotFoundException');
    expect(missingDirect?.name).toBe(missingSdk?.name);
    expect(missingDirect).toBeInstanceOf(ResourceNotFoundException);

    const invalid = new UpdateItemCommand({ TableName: table, Key: { pk: { S: pk } }, UpdateExpression: 'SET = nonsense' });
    const [invalidDirect, invalidSdk] = [await errorOf(direct.send(invalid)), await errorOf(sdk.send(invalid))];
    expect(invalidDirect?.name).toBe('ValidationException');
    expect(invalidDirect?.name).toBe(invalidSdk?.name);
    // No class of its own in the SDK: its base class, as the SDK answers it.
    expect(invalidDirect).toBeInstanceOf(DynamoDBServiceException);
    expect(Object.getPrototypeOf(invalidDirect)).toBe(Object.getPrototypeOf(invalidSdk));
    expect(leftToSdk).toEqual([]);
  });
});

describe('retries of direct item requests', () => {
  let dynalite: RunningDynamoDb;
  let proxy: Server;
  let proxyEndpoint: string;
  const table = `direct-retries-${randomUUID()}`;
  /** What the proxy answers the next requests instead of forwarding them; each is used once. */
  const faults: Array<{ status: number; type?: string }> = [];
  let requests = 0;

  beforeAll(async () => {
    dynalite = await dynamoDbServers.find((server) => server.name === 'dynalite')!.start();
    const upstream = new URL(dynalite.endpoint);
    proxy = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
      requests++;
      const fault = faults.shift();
      if (fault !== undefined) {
        incoming.resume();
        const body = fault.type === undefined ? '<html>bad gateway</html>' : JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${fault.type}`, message: 'injected' });
        outgoing.writeHead(fault.status, { 'content-type': fault.type === undefined ? 'text/html' : 'application/x-amz-json-1.0' }).end(body);
        return;
      }
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyEndpoint = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const setup = new DynamoDBClient(dynamoDbClientConfig({ endpoint: dynalite.endpoint }));
    await ensureTable(setup, table);
    await setup.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'here' } } }));
    setup.destroy();
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => proxy?.close(() => resolve()));
    await dynalite?.stop();
  });

  const read = (client: DynamoDBClient) => client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'here' } }, ConsistentRead: true }));

  it('retries throttling and server errors with the SDK strategy, up to its 3 attempts', async () => {
    const client = newLambdaDynamoDbClient({ endpoint: proxyEndpoint }, true);
    try {
      faults.push({ status: 400, type: 'ProvisionedThroughputExceededException' }, { status: 502 });
      requests = 0;
      const answer = await read(client);
      expect(answer.Item).toEqual({ pk: { S: 'here' } });
      expect(answer.$metadata.attempts).toBe(3);
      expect(requests).toBe(3);

      faults.push({ status: 500, type: 'InternalServerError' }, { status: 503 }, { status: 500, type: 'InternalServerError' });
      requests = 0;
      const failure = await read(client).then(() => undefined, (error: unknown) => error as Error & { $metadata?: { attempts?: number } });
      expect(failure?.name).toBe('InternalServerError');
      expect(failure?.$metadata?.attempts).toBe(3);
      expect(requests).toBe(3);
    } finally {
      client.destroy();
    }
  });

  it('does not retry what retrying cannot fix', async () => {
    const client = newLambdaDynamoDbClient({ endpoint: proxyEndpoint }, true);
    try {
      for (const type of ['ValidationException', 'ConditionalCheckFailedException', 'AccessDeniedException']) {
        faults.push({ status: 400, type });
        requests = 0;
        await expect(read(client)).rejects.toMatchObject({ name: type, $metadata: { httpStatusCode: 400, attempts: 1 } });
        expect(requests, type).toBe(1);
      }
      expect(faults).toEqual([]);
    } finally {
      client.destroy();
    }
  });

});

/**
 * What goes to AWS itself, which this machine cannot reach: the client's HTTP handler is replaced
 * by one that keeps each request and answers 200 with a fixed item, so the endpoint, the
 * signature's scope and the body can be read. Everything above the handler is the real code.
 */
describe('direct item requests to AWS endpoints', () => {
  type Captured = { protocol: string; hostname: string; port?: number; path: string; headers: Record<string, string>; body: string; abortSignal?: unknown };
  const ITEM_ANSWER = { status: 200, body: { Item: { pk: { S: 'answer' }, bytes: { B: 'AAEC' } } } };

  function capturingClient(options: { region: string; useFipsEndpoint?: boolean }, answer: { status: number; body: object } = ITEM_ANSWER) {
    const sent: Captured[] = [];
    const requestHandler = {
      handle: async (request: Captured, handlerOptions?: { abortSignal?: unknown }) => {
        sent.push({ ...request, abortSignal: handlerOptions?.abortSignal });
        const body = Readable.from([Buffer.from(JSON.stringify(answer.body))]);
        return { response: { statusCode: answer.status, headers: { 'x-amzn-requestid': 'req-1', 'content-type': 'application/x-amz-json-1.0' }, body } };
      },
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
    };
    const client = new DynamoDBClient({ ...options, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' }, requestHandler: requestHandler as never });
    sendItemRequestsDirectly(client);
    return { client, sent };
  }

  it.each([
    { region: 'us-east-1', host: 'dynamodb.us-east-1.amazonaws.com' },
    { region: 'cn-north-1', host: 'dynamodb.cn-north-1.amazonaws.com.cn' },
    { region: 'eu-west-1', useFipsEndpoint: true, host: 'dynamodb-fips.eu-west-1.amazonaws.com' },
  ])('signs for $region at $host', async ({ host, ...options }) => {
    const { client, sent } = capturingClient(options);
    const input = { TableName: 'passlane', Key: { pk: { S: 'user#abc' } }, ConsistentRead: true };
    const output = await client.send(new GetItemCommand(input));
    expect(output.Item).toEqual({ pk: { S: 'answer' }, bytes: { B: new Uint8Array([0, 1, 2]) } });
    expect(output.$metadata).toMatchObject({ httpStatusCode: 200, requestId: 'req-1', attempts: 1 });

    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request).toMatchObject({ protocol: 'https:', hostname: host, path: '/' });
    expect(JSON.parse(request!.body)).toEqual(input);
    expect(request!.headers).toMatchObject({ host, 'x-amz-target': 'DynamoDB_20120810.GetItem', 'content-type': 'application/x-amz-json-1.0', 'x-amz-security-token': 'session', 'user-agent': 'passlane (direct item requests)' });
    expect(request!.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\\d{8}/${options.region}/dynamodb/aws4_request, SignedHeaders=[a-z0-9;-]*host;[a-z0-9;-]*x-amz-target, Signature=[0-9a-f]{64}$`));
    client.destroy();
  });

  it('answers a failed condition as the SDK’s ConditionalCheckFailedException, its Item on it', async () => {
    // What attempt-counters.ts reads: ReturnValuesOnConditionCheckFailure's item on the error
    // (dynalite above answers without it, so a canned answer here).
    const item = { pk: { S: 'counter#1' }, count: { N: '3' } };
    const { client } = capturingClient({ region: 'us-east-1' }, { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed', Item: item } });
    const error = await client.send(new PutItemCommand({ TableName: 'passlane', Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', message: 'The conditional request failed', $fault: 'client', Item: item });
    expect((error as ConditionalCheckFailedException).$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'req-1', attempts: 1 });
    client.destroy();
  });

  it('answers an error the SDK has no class for as a DynamoDBServiceException of its name', async () => {
    const { client } = capturingClient({ region: 'us-east-1' }, { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad', Extra: 1 } });
    const error = await client.send(new GetItemCommand({ TableName: 'passlane', Key: { pk: { S: 'x' } } })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(error).toBeInstanceOf(DynamoDBServiceException);
    expect(error).toMatchObject({ name: 'ValidationException', message: 'bad', $fault: 'client', Extra: 1 });
    client.destroy();
  });

  it('leaves a call with an abortSignal to the SDK’s own path, which hands the signal to the HTTP handler', async () => {
    const { client, sent } = capturingClient({ region: 'us-east-1' });
    const controller = new AbortController();
    const input = { TableName: 'passlane', Key: { pk: { S: 'user#abc' } } };
    expect((await client.send(new GetItemCommand(input), { abortSignal: controller.signal })).Item).toEqual({ pk: { S: 'answer' }, bytes: { B: new Uint8Array([0, 1, 2]) } });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.abortSignal).toBe(controller.signal);
    expect(sent[0]!.headers['user-agent']).not.toBe('passlane (direct item requests)');
    // Without one, the same client takes the short path.
    await client.send(new GetItemCommand(input));
    expect(sent[1]!.headers['user-agent']).toBe('passlane (direct item requests)');
    client.destroy();
  });
});

describe('the Lambda fast paths’ switch', () => {
  it('is on unless PASSLANE_LAMBDA_FAST_PATHS is off, and refuses anything else', () => {
    expect(readLambdaFastPaths({})).toBe(true);
    expect(readLambdaFastPaths({ PASSLANE_LAMBDA_FAST_PATHS: '' })).toBe(true);
    expect(readLambdaFastPaths({ PASSLANE_LAMBDA_FAST_PATHS: 'on' })).toBe(true);
    expect(readLambdaFastPaths({ PASSLANE_LAMBDA_FAST_PATHS: 'off' })).toBe(false);
    expect(() => readLambdaFastPaths({ PASSLANE_LAMBDA_FAST_PATHS: 'no' })).toThrow(ConfigError);
  });

  it('leaves the functions’ client the plain SDK one when off', () => {
    const on = newLambdaDynamoDbClient({ endpoint: 'http://127.0.0.1:1' }, true);
    const off = newLambdaDynamoDbClient({ endpoint: 'http://127.0.0.1:1' }, false);
    const plain = new DynamoDBClient(dynamoDbClientConfig({ endpoint: 'http://127.0.0.1:1' }));
    const names = (client: DynamoDBClient) => client.middlewareStack.identify();
    expect(names(on).length).toBe(names(plain).length + 1);
    expect(names(off)).toEqual(names(plain));
    for (const client of [on, off, plain]) client.destroy();
  });
});
