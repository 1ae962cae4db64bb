/**
 * `npm start`: the HTTP contract on http://127.0.0.1:3000, served by the same Lambda handlers as
 * in AWS. Each request becomes an API Gateway HTTP API (payload 2.0) event. Storage is an
 * embedded dynalite persisted under the data directory, or DYNAMODB_ENDPOINT when set.
 *
 * Env: PORT (3000), HOST (127.0.0.1), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT, PASSLANE_DATA_DIR
 * (.data), plus everything the handlers read (PASSLANE_TABLE, PASSLANE_LOGIN_LIMIT_*, ...).
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { HttpResponse, LambdaHttpEvent } from '../http/http-types.js';
import { errorResponse } from '../http/responses.js';

type Env = Record<string, string | undefined>;
type LambdaHandler = (event: LambdaHttpEvent, context: Context) => Promise<HttpResponse>;

export interface LocalServerOptions {
  /** Defaults to PORT, else 3000; 0 picks a free port. */
  port?: number;
  host?: string;
  /** Defaults to PASSLANE_DATA_DIR, else `.data`: the dynalite files and the JWT signing key. */
  dataDir?: string;
  /** Embedded dynalite's port: DYNAMODB_PORT, else 8000; 0 picks a free port. */
  dynamoDbPort?: number;
  /** Use this DynamoDB(-compatible) server instead of the embedded dynalite (DYNAMODB_ENDPOINT). */
  dynamoDbEndpoint?: string;
  /** Defaults to process.env. */
  env?: Env;
}

export interface LocalServer {
  url: string;
  dynamoDbEndpoint: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Far above the handlers' 8 KiB JSON limit; only stops the local server buffering unbounded bodies. */
const LOCAL_MAX_BODY_BYTES = 1024 * 1024;
/** API Gateway's integration timeout: the handlers see it as remaining Lambda time. */
const INVOCATION_TIMEOUT_MS = 29_000;

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const env = options.env ?? process.env;
  const host = options.host ?? nonEmpty(env.HOST) ?? '127.0.0.1';
  const port = options.port ?? portFrom(env.PORT, 'PORT', 3000);
  const dataDir = resolve(options.dataDir ?? nonEmpty(env.PASSLANE_DATA_DIR) ?? '.data');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  // EMF lines only mean something to CloudWatch; set before the handlers (and Metrics) load.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const external = options.dynamoDbEndpoint ?? nonEmpty(env.DYNAMODB_ENDPOINT);
  const dynalite = external
    ? undefined
    : await startDynalite(host, options.dynamoDbPort ?? portFrom(env.DYNAMODB_PORT, 'DYNAMODB_PORT', 8000), join(dataDir, 'dynalite'));
  const dynamoDbEndpoint = external ?? dynalite!.endpoint;
  const handlerEnv: Env = { ...env, DYNAMODB_ENDPOINT: dynamoDbEndpoint, PASSLANE_DATA_DIR: dataDir };

  let server: Server | undefined;
  try {
    const handlers = await loadHandlers(handlerEnv, dataDir);
    server = createServer((request, response) => void serve(handlers.routes, request, response));
    await listen(server, port, host);
  } catch (error) {
    await dynalite?.stop();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;

  let stopped: Promise<void> | undefined;
  const running = server;
  return {
    url,
    dynamoDbEndpoint,
    dataDir,
    stop: () =>
      (stopped ??= (async () => {
        running.closeAllConnections();
        await new Promise<void>((done, fail) => running.close((error) => (error ? fail(error) : done())));
        await dynalite?.stop();
      })()),
  };
}

interface Route {
  name: string;
  methods: Record<string, LambdaHandler>;
}

/**
 * Imported here, not at the top: Powertools reads its env (POWERTOOLS_METRICS_DISABLED) when the
 * modules load. Dependencies are built once, now, so a bad setting fails the start, and the
 * table exists before the first request.
 */
async function loadHandlers(env: Env, dataDir: string): Promise<{ routes: Map<string, Route> }> {
  const [handlers, app, storage, client] = await Promise.all([
    import('../../functions/create-handler.js'),
    import('../app/create-auth-dependencies.js'),
    import('../storage/table.js'),
    import('../storage/dynamodb-client.js'),
  ]);
  const deps = await app.createAuthDependencies(env, { dataDir });
  await storage.ensureTable(client.createDynamoDbClient(env), storage.tableNameFromEnv(env), { maxWaitSeconds: 30 });
  const getDeps = async () => deps;
  const routes = new Map<string, Route>([
    ['/register', { name: 'register', methods: { POST: handlers.createRegisterHandler(getDeps) } }],
    ['/login', { name: 'login', methods: { POST: handlers.createLoginHandler(getDeps) } }],
    ['/password', { name: 'password', methods: { POST: handlers.createPasswordHandler(getDeps) } }],
    ['/.well-known/jwks.json', { name: 'jwks', methods: { GET: handlers.createJwksHandler(async () => deps.tokens) } }],
    [
      '/.well-known/openid-configuration',
      { name: 'openid-configuration', methods: { GET: handlers.createOpenIdConfigurationHandler(async () => deps.tokens) } },
    ],
  ]);
  return { routes };
}

async function serve(routes: Map<string, Route>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = routes.get(url.pathname);
    const method = (request.method ?? 'GET').toUpperCase();
    if (route === undefined) return send(response, errorResponse(404, 'not_found', 'no such route'));
    const handler = route.methods[method];
    if (handler === undefined) {
      const allow = Object.keys(route.methods).join(', ');
      return send(response, errorResponse(405, 'method_not_allowed', `use ${allow}`, { allow }));
    }
    const body = await readBody(request);
    if (body === 'too-large') {
      return send(response, errorResponse(413, 'payload_too_large', `request body must be at most ${LOCAL_MAX_BODY_BYTES} bytes`));
    }
    send(response, await handler(toApiGatewayV2Event(request, url, body), lambdaContext(route.name)));
  } catch {
    // The handlers answer their own errors; reaching here is a local-server bug. No details out.
    if (!response.headersSent) send(response, errorResponse(500, 'internal_error', 'internal error'));
    else response.destroy();
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= LOCAL_MAX_BODY_BYTES) chunks.push(chunk); // keep draining, stop keeping
  }
  return size > LOCAL_MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks);
}

/** The event API Gateway's HTTP API would send: text bodies as strings, others base64. */
export function toApiGatewayV2Event(request: IncomingMessage, url: URL, body: Buffer): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway sets this (to https); here the server speaks plain HTTP.
  headers['x-forwarded-proto'] = 'http';
  const method = (request.method ?? 'GET').toUpperCase();
  const isText = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|xml))/i.test(headers['content-type'] ?? '');
  const now = new Date();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: `${method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: `${method} ${url.pathname}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 && { body: isText ? body.toString('utf8') : body.toString('base64') }),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function lambdaContext(name: string): Context {
  const deadline = Date.now() + INVOCATION_TIMEOUT_MS;
  const functionName = `passlane-local-${name}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(response: ServerResponse, result: HttpResponse): void {
  response.writeHead(result.statusCode, result.headers);
  response.end(result.body);
}

interface Dynalite {
  endpoint: string;
  stop(): Promise<void>;
}
type DynaliteFactory = (options: { path: string; createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

/** dynalite is CommonJS without types; with `path` it keeps tables in LevelDB files there. */
async function startDynalite(host: string, port: number, path: string): Promise<Dynalite> {
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await listen(server, port, host);
  const { port: actualPort } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    // close() also closes the LevelDB store (flushing it); the SDK's keep-alive sockets would hold it open.
    stop: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}

function portFrom(value: string | undefined, name: string, fallback: number): number {
  const text = nonEmpty(value);
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new Error(`${name} must be a port number from 0 to 65535`);
  return port;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

// ---- CLI (npm start) ----

async function main(): Promise<void> {
  const server = await startLocalServer();
  // One write, so a reader of stdout gets the whole banner at once.
  console.log(
    [
      `passlane listening on ${server.url}`,
      `  DynamoDB: ${server.dynamoDbEndpoint}   data: ${server.dataDir}`,
      `  try: curl -i -X POST ${server.url}/register -H 'content-type: application/json' \\`,
      `         -d '{"email":"ada@example.com","password":"correct horse battery staple"}'`,
      '  Ctrl-C to stop.',
    ].join('\n'),
  );
  const shutdown = (signal: string): void => {
    console.log(`${signal} received, stopping`);
    server.stop().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        console.error('stop failed:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error('passlane local server failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
