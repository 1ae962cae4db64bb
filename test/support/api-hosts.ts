/**
 * Every host of the one API, started for real against a DynamoDB server on loopback, behind one
 * `send` so the contract suite can run the same requests through each:
 *   lambda        the functions/*.ts handlers in-process, API Gateway HTTP API (2.0) events,
 *                 dispatched by serverless.yml's routes (method and path template, as API Gateway
 *                 does; another method to the path's function, as its Function URL would, but an
 *                 OPTIONS no route declares is API Gateway's own 404, as on the HTTP API)
 *   node          `npm start`'s server (packages/server/src/runtimes/node/local-server.ts)
 *   workerd       the Worker bundle wrangler deploys, in Miniflare
 *   edge-runtime  packages/server/src/runtimes/vercel-edge/vercel-edge.ts bundled for the edge, in Vercel's EdgeVM, wasm code generation off
 *   deno          packages/server/dist/runtimes/deno/deno.js in the `deno` binary from npm
 *   bun           packages/server/src/runtimes/bun/bun.ts in the `bun` binary from npm
 *   serverless-offline  `npm run offline` (scripts/offline/start-offline.ts): serverless.yml in
 *                 serverless-offline, the functions' zips in its worker threads; what no route
 *                 serves goes to the path's function through its Lambda invoke API, as the
 *                 lambda host sends it (a Function URL's event)
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { Miniflare } from 'miniflare';
import { parse as parseYaml } from 'yaml';
import { bundleForEdge, buildWorker, WORKER_COMPATIBILITY_FLAGS } from '../../packages/server/src/runtimes/workers/build-worker.js';
import { LAMBDA_FUNCTIONS } from '../../scripts/packaging/lambda-functions.js';
import { startLocalServer } from '../../packages/server/src/runtimes/node/local-server.js';
import { startServerlessOffline } from '../../scripts/offline/start-offline.js';
import { startEdgeVm } from './edge-vm.js';
import { lambdaContext } from './lambda-context.js';
import type { HttpAnswer } from './openapi.js';

export interface HostRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface RunningHost {
  send(request: HostRequest): Promise<HttpAnswer>;
  stop(): Promise<void>;
  /** Why this host answers CORS itself rather than passing on the functions' answers (its CORS steps are skipped). */
  corsOfItsOwn?: string;
}

export type HostName = 'lambda' | 'node' | 'workerd' | 'edge-runtime' | 'deno' | 'bun' | 'serverless-offline';
export const HOST_NAMES: readonly HostName[] = ['lambda', 'node', 'workerd', 'edge-runtime', 'deno', 'bun', 'serverless-offline'];

type Env = Record<string, string>;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function startHost(name: HostName, env: Env): Promise<RunningHost> {
  switch (name) {
    case 'lambda':
      return startLambda(env);
    case 'node':
      return startNode(env);
    case 'workerd':
      return startWorkerd(env);
    case 'edge-runtime':
      return startVercelEdge(env);
    case 'deno':
      return startProcess(
        join(ROOT, 'node_modules/.bin/deno'),
        ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-ffi', '--allow-sys', 'packages/server/dist/runtimes/deno/deno.js'],
        env,
      );
    case 'bun':
      return startProcess(join(ROOT, 'node_modules/.bin/bun'), ['packages/server/src/runtimes/bun/bun.ts'], env);
    case 'serverless-offline':
      return startOffline(env);
  }
}

async function answerOf(response: Response): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { statusCode: response.status, headers, body: await response.text() };
}

/** As a client of the API sends it: a redirect (a sign-in's start and callback) is an answer to look at, not to follow. */
function fetchInit({ method, headers = {}, body }: HostRequest): RequestInit {
  return { method, headers, redirect: 'manual', ...(body !== undefined && { body }) };
}

/** Requests through a runtime's own dispatcher, with the header its platform sets for the client's address. */
function sendVia(dispatch: (url: string, init: RequestInit) => Promise<unknown>, platformHeaders: Record<string, string>) {
  return async (request: HostRequest): Promise<HttpAnswer> =>
    answerOf((await dispatch(`https://auth.test${request.path}`, fetchInit({ ...request, headers: { ...platformHeaders, ...request.headers } }))) as Response);
}

/** One `httpApi` event of serverless.yml: `'DELETE /sessions/{id}'`, or `{ method, path }`. */
type HttpApiEvent = string | { method?: string; path?: string };

/** An API Gateway route of serverless.yml: its method (`*` for ANY), its path template as a RegExp with named parameters, its function. */
interface ServiceRoute {
  method: string;
  template: string;
  pattern: RegExp;
  functionName: string;
}
type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: unknown) => Promise<HttpAnswer & { cookies?: string[] }>;

function serviceRoute(event: HttpApiEvent, functionName: string): ServiceRoute | undefined {
  const [method, template] = typeof event === 'string' ? event.trim().split(/\s+/) : [event.method, event.path];
  if (method === undefined || template === undefined) return undefined;
  // `{id}` is one segment, `{proxy+}` the rest of the path (API Gateway's greedy parameter).
  const source = template
    .split(/(\{[^/{}]+\})/)
    .map((part) => {
      const parameter = /^\{([^/{}+]+)(\+?)\}$/.exec(part);
      if (parameter) return parameter[2] ? `(?<${parameter[1]}>.+)` : `(?<${parameter[1]}>[^/]+)`;
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { method: method.toUpperCase() === 'ANY' ? '*' : method.toUpperCase(), template, pattern: new RegExp(`^${source}$`), functionName };
}

/** serverless.yml's routes, the most specific first (API Gateway picks a literal path before a template). */
async function serviceRoutes(): Promise<ServiceRoute[]> {
  const serverless = parseYaml(await readFile(join(ROOT, 'serverless.yml'), 'utf8')) as {
    functions: Record<string, { events?: Array<{ httpApi?: HttpApiEvent }> }>;
  };
  const routes: ServiceRoute[] = [];
  for (const [name, definition] of Object.entries(serverless.functions)) {
    for (const event of (definition.events ?? []).flatMap((event) => (event.httpApi === undefined ? [] : [event.httpApi]))) {
      const route = serviceRoute(event, name);
      if (route === undefined) throw new Error(`serverless.yml function ${name}: unsupported httpApi event ${JSON.stringify(event)}`);
      routes.push(route);
    }
  }
  routes.sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  if (!routes.some((route) => route.template === '/login')) throw new Error('serverless.yml has no POST /login route');
  return routes;
}

/** The route API Gateway would send `request` to, if any. */
function routeOf(routes: readonly ServiceRoute[], { method, path }: { method: string; path: string }): ServiceRoute | undefined {
  return routes.find((route) => (route.method === method.toUpperCase() || route.method === '*') && route.pattern.test(path));
}

/**
 * The function that answers a request no route serves, through its Function URL: the path's
 * function (to answer 405), else the login one.
 */
function functionUrlTarget(routes: readonly ServiceRoute[], path: string): string {
  return (routes.find((candidate) => candidate.pattern.test(path)) ?? routes.find((route) => route.template === '/login')!).functionName;
}

/**
 * The payload 2.0 event API Gateway sends for `request` (`routed`: its route), or a Function
 * URL's (routeKey $default) when no route serves it.
 */
function apiGatewayEvent({ method, path: target, headers = {}, body }: HostRequest, routed: ServiceRoute | undefined): APIGatewayProxyEventV2 {
  const [path = '', query = ''] = target.split(/\?(.*)/s);
  const routeKey = routed ? `${routed.method === '*' ? 'ANY' : routed.method} ${routed.template}` : '$default';
  const pathParameters = routed ? routed.pattern.exec(path)?.groups : undefined;
  const queryStringParameters = query === '' ? undefined : Object.fromEntries(new URLSearchParams(query));
  const { cookie, ...lowerCased } = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  // API Gateway's payload 2.0 moves the Cookie header into `cookies` (and Set-Cookie out of the
  // answer's `headers` into `cookies`: lambdaAnswer).
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: query,
    headers: lowerCased,
    ...(queryStringParameters && { queryStringParameters }),
    ...(pathParameters && Object.keys(pathParameters).length > 0 && { pathParameters: { ...pathParameters } }),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: lowerCased['user-agent'] ?? 'vitest' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(cookie !== undefined && { cookies: cookie.split(/;\s*/) }),
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2;
}

/** A payload 2.0 answer as the client gets it: `cookies` as Set-Cookie. */
function lambdaAnswer({ cookies, ...rest }: HttpAnswer & { cookies?: string[] }): HttpAnswer {
  return cookies === undefined ? rest : { ...rest, headers: { ...rest.headers, 'set-cookie': cookies.join(', ') } };
}

/**
 * The real function modules: they read process.env once per "container", so it is set before
 * they load. A request goes to the function whose serverless.yml route matches its method and
 * path, as API Gateway routes it (with the routeKey and path parameters it sets); a method no
 * route of the path has goes to the path's function, as its Function URL would, to answer 405.
 */
async function startLambda(env: Env): Promise<RunningHost> {
  Object.assign(process.env, env);
  const routes = await serviceRoutes();
  const handlers = new Map<string, LambdaHttpHandler>();
  for (const { functionName } of routes) {
    if (handlers.has(functionName)) continue;
    const entry = LAMBDA_FUNCTIONS.find((fn) => fn.name === functionName)?.entry;
    if (entry === undefined) throw new Error(`serverless.yml function ${functionName} has no entry in LAMBDA_FUNCTIONS`);
    handlers.set(functionName, ((await import(join(ROOT, entry))) as { handler: LambdaHttpHandler }).handler);
  }
  return {
    send: async (request) => {
      const routed = routeOf(routes, { method: request.method, path: request.path.split('?')[0]! });
      // An HTTP API without CORS of its own passes a preflight on only where an OPTIONS route says so.
      if (routed === undefined && request.method.toUpperCase() === 'OPTIONS') {
        return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"message":"Not Found"}' };
      }
      const handler = handlers.get(routed?.functionName ?? functionUrlTarget(routes, request.path.split('?')[0]!))!;
      return lambdaAnswer(await handler(apiGatewayEvent(request, routed), lambdaContext()));
    },
    stop: async () => undefined,
  };
}

/**
 * `npm run offline` on a copy of serverless.yml and infra/ (its zips are built into the copy, so
 * the packaging tests' .package/ is left alone), over the contract's DynamoDB. The contract's
 * settings that serverless.yml carries are its params, the rest the functions' local
 * environment; its table is serverless.yml's own (passlane-dev-users), not PASSLANE_TABLE. A
 * request a route serves goes through serverless-offline's API Gateway; any other to the path's
 * function through serverless-offline's Lambda invoke API, as the lambda host sends it.
 */
async function startOffline(env: Env): Promise<RunningHost> {
  const serviceDir = await mkdtemp(join(tmpdir(), 'passlane-contract-offline-'));
  await cp(join(ROOT, 'serverless.yml'), join(serviceDir, 'serverless.yml'));
  await cp(join(ROOT, 'infra'), join(serviceDir, 'infra'), { recursive: true });
  const {
    PASSLANE_TABLE: _own,
    PASSLANE_LOGIN_FAILURES_PER_ACCOUNT_SOURCE: failures,
    PASSLANE_MAIL_FROM: mailFrom,
    PASSLANE_APP_URL: appUrl,
    PASSLANE_WEBAUTHN_RP_ID: webauthnRpId,
    PASSLANE_WEBAUTHN_ORIGINS: webauthnOrigins,
    ...local
  } = env;
  const routes = await serviceRoutes();
  const server = await startServerlessOffline({
    serviceDir,
    dataDir: join(serviceDir, 'data'),
    port: 0,
    lambdaPort: 0,
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...local },
    params: {
      ...(failures !== undefined && { loginFailuresPerAccountSource: failures }),
      ...(mailFrom !== undefined && { mailFrom }),
      ...(appUrl !== undefined && { appUrl }),
      ...(webauthnRpId !== undefined && { webauthnRpId }),
      ...(webauthnOrigins !== undefined && { webauthnOrigins }),
      // With a sender, CloudFormation derives the identity from the account id: offline it is given.
      ...(mailFrom !== undefined && { sesIdentityArn: `arn:aws:ses:${env.AWS_REGION ?? 'eu-west-1'}:123456789012:identity/${mailFrom.replace(/^.*@|>$/g, '')}` }),
    },
    // Its route table and a line per request would flood the test output; a failed start prints what it said.
    output: () => undefined,
  });
  return {
    send: async (request) => {
      const path = request.path.split('?')[0]!;
      if (routeOf(routes, { method: request.method, path }) !== undefined) return withoutHapiHeaders(await answerOf(await fetch(`${server.url}${request.path}`, fetchInit(request))));
      const functionName = `passlane-${server.stage}-${functionUrlTarget(routes, path)}`;
      const invoked = await fetch(`${server.lambdaUrl}/2015-03-31/functions/${functionName}/invocations`, { method: 'POST', body: JSON.stringify(apiGatewayEvent(request, undefined)) });
      if (!invoked.ok) throw new Error(`serverless-offline could not invoke ${functionName}: ${invoked.status} ${await invoked.text()}`);
      return lambdaAnswer((await invoked.json()) as HttpAnswer & { cookies?: string[] });
    },
    stop: async () => {
      await server.stop();
      await rm(serviceDir, { recursive: true, force: true });
    },
    // Its hapi server grants any Origin with credentials and answers preflights 200 whatever the
    // functions say, unless serverless.yml configures CORS on the HTTP API, which passlane does not.
    corsOfItsOwn: 'serverless-offline 13 answers every request that has an Origin with its own CORS headers',
  };
}

/**
 * What serverless-offline's web server (hapi) adds and API Gateway does not: `; charset=utf-8` on
 * every content type, and a JSON content type on an answer without one (an empty 204). Taken off,
 * so the comparison with the lambda host is about the functions' answers; infra/README.md
 * ("Running offline") lists both.
 */
function withoutHapiHeaders(answer: HttpAnswer): HttpAnswer {
  const type = answer.headers['content-type'];
  if (type === undefined) return answer;
  const { 'content-type': _added, ...headers } = answer.headers;
  if (answer.body === '' && type === 'application/json; charset=utf-8') return { ...answer, headers };
  return { ...answer, headers: { ...headers, 'content-type': type.replace(/; charset=utf-8$/, '') } };
}

async function startNode(env: Env): Promise<RunningHost> {
  const server = await startLocalServer({ port: 0, dynamoDbEndpoint: env.DYNAMODB_ENDPOINT, env });
  return { send: async (request) => answerOf(await fetch(`${server.url}${request.path}`, fetchInit(request))), stop: () => server.stop() };
}

async function startWorkerd(env: Env): Promise<RunningHost> {
  const outdir = await mkdtemp(join(tmpdir(), 'passlane-contract-worker-'));
  const bundle = await buildWorker({ outdir, minify: false });
  const miniflare = new Miniflare({
    modules: true,
    scriptPath: bundle.scriptPath,
    modulesRoot: outdir,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2025-01-01',
    compatibilityFlags: WORKER_COMPATIBILITY_FLAGS,
    bindings: env,
    handleStructuredLogs: () => undefined,
  });
  await miniflare.ready;
  return {
    send: sendVia((url, init) => miniflare.dispatchFetch(url, init as never), { 'cf-connecting-ip': '203.0.113.9' }),
    stop: async () => {
      await miniflare.dispose();
      await rm(outdir, { recursive: true, force: true });
    },
  };
}

/** Vercel passes env as `process.env`, and AsyncLocalStorage as a global. */
async function startVercelEdge(env: Env): Promise<RunningHost> {
  const outdir = await mkdtemp(join(tmpdir(), 'passlane-contract-vercel-'));
  const bundle = await bundleForEdge({ entry: join(ROOT, 'packages/server/src/runtimes/vercel-edge/vercel-edge.ts'), outdir, conditions: ['edge-light', 'worker', 'browser'] });
  const vm = await startEdgeVm(bundle, 'entry(request)', {
    process: { env },
    // Vercel's runtime offers it as a global (vercel-edge.ts keeps each request's appended events apart with it).
    AsyncLocalStorage,
    // Info lines (audit events) would flood the test output; warnings and errors still show.
    console: { ...console, log: () => undefined },
  });
  return {
    send: sendVia((url, init) => vm.dispatchFetch(url, init), { 'x-real-ip': '203.0.113.9' }),
    stop: () => rm(outdir, { recursive: true, force: true }),
  };
}

/** A runtime binary serving on a free port (PORT=0), found from its "listening on" line. */
async function startProcess(command: string, args: string[], env: Env): Promise<RunningHost> {
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.at(-1)} did not start in time: ${output.slice(-2000)}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.at(-1)} exited with ${code}: ${output.slice(-2000)}`));
    });
  });
  return {
    send: async (request) => answerOf(await fetch(`${url}${request.path}`, fetchInit(request))),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
