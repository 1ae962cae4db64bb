/**
 * The process that `npx tsx bench/login-ab.ts` drives: one bundle, built by the
 * packaging code like a function, holding the login twice over for each optimisation measured,
 * with and without it, so both run the same code in the same warm process and only the one seam
 * differs:
 *
 * - the DynamoDB short path (src/runtimes/lambda/direct-requests.ts): the login handler over the
 *   functions' client, and over a plain SDK client of the same configuration;
 * - the Lambda host's streamless bodies (src/runtimes/lambda/text-response.ts): hono's Lambda
 *   adapter over the API, with the seam's held body and TextResponses, and without (a web
 *   Request with the event's body, web Responses), neither inside middy;
 * - the platform's JWS signer: the login handler with node:crypto's and with Web Crypto's, and
 *   an access token's signature through each, bare;
 * - bare GetItems through each client, and with the SDK's middleware stack resolved per send.
 *
 * Driven over IPC, one request at a time; it answers CPU and wall time per operation and status
 * counts, never a password, hash, token or email.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { handle } from 'hono/aws-lambda';
import { createApi } from '../packages/server/src/api/create-api.js';
import { readConfig, type PasslaneConfig } from '../packages/server/src/config/read-config.js';
import type { DynamoDbConnection } from '../packages/server/src/storage/settings.js';
import type { LoginServices } from '../packages/server/src/features/login/dependencies.js';
import { loginRoute } from '../packages/server/src/features/login/login-route.js';
import { registerRoute } from '../packages/server/src/features/register/register-route.js';
import { createNodeJwsSigner } from '../packages/server/src/features/tokens/node-jws-signer.js';
import { createWebCryptoJwsSigner, type CreateJwsSigner } from '../packages/server/src/features/tokens/sign-jws.js';
import type { TokenService } from '../packages/server/src/features/tokens/token-service.js';
import { lambdaHandler, type LambdaHttpEvent, type LambdaHttpResponse } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { streamlessBodies } from '../packages/server/src/runtimes/lambda/text-response.js';
import { nodePlatform, nodePlatformWithoutBlocklist } from '../packages/server/src/runtimes/node/node-platform.js';
import { dynamoDbClientConfig } from '../packages/server/src/storage/dynamodb-client.js';
import { newLambdaDynamoDbClient } from '../packages/server/src/runtimes/lambda/lambda-dynamodb-client.js';
import { ensureTable, USER_KEY_PREFIX } from '../packages/server/src/storage/table.js';
import { buildAuthDependencies, buildRegisterDependencies, buildTokenService, type AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import type { Platform } from '../packages/server/src/wiring/platform.js';
import { httpEvent, lambdaContext, measureBatch } from './lambda-harness.js';

export type AbKind =
  | 'verify'
  | 'login'
  | 'login-sdk'
  | 'login-webcrypto'
  | 'login-streamless'
  | 'login-streams'
  | 'getitem'
  | 'getitem-sdk'
  | 'getitem-sdk-uncached'
  | 'sign-node'
  | 'sign-webcrypto';

export type AbRequest = { op: 'init'; email: string; password: string } | { op: 'batch'; kind: AbKind; n: number; expect: number };

export interface AbReplies {
  init: { ok: true; perAccount: number };
  batch: { ok: true; cpuMs: number[]; wallMs: number[]; statuses: Record<string, number>; unexpected?: string };
}

export type AbReply = AbReplies[keyof AbReplies] | { ok: false; error: string };

type Handler = (event: LambdaHttpEvent, context: unknown) => Promise<{ statusCode: number; body?: string }>;

/** The functions' client (short path) and a plain SDK client of the same configuration. */
const plainClients = new Map<string, DynamoDBClient>();
const plainClient = (connection: DynamoDbConnection, options: { cacheMiddleware?: boolean } = {}) => {
  const key = JSON.stringify(options);
  let client = plainClients.get(key);
  if (client === undefined) {
    client = new DynamoDBClient({ ...dynamoDbClientConfig(connection), ...options });
    plainClients.set(key, client);
  }
  return client;
};

interface State {
  config: PasslaneConfig;
  email: string;
  password: string;
  deviceToken?: string;
  stored: string;
  userId: string;
  handlers: Record<'login' | 'login-sdk' | 'login-webcrypto' | 'login-streamless' | 'login-streams', Handler>;
  deps: AppDependencies;
  signers: Record<'node' | 'webcrypto', TokenService>;
  clients: Record<'direct' | 'sdk' | 'sdk-uncached', DynamoDBClient>;
}

let state: State | undefined;
const ready = (): State => {
  if (state === undefined) throw new Error('not initialised');
  return state;
};

/** hono's Lambda adapter over the API, as the Lambda host builds it, with or without the streamless seam; no middy. */
function apiHandler(services: LoginServices, streamless: boolean): Handler {
  const bodies = streamless ? streamlessBodies() : undefined;
  const app = createApi<LoginServices>([loginRoute], {
    services: () => services,
    origin: (c) => ({ sourceIp: (c.env as { requestContext?: { http?: { sourceIp?: string } } }).requestContext?.http?.sourceIp, requestId: undefined }),
    ...(bodies !== undefined && { body: bodies.body, respond: bodies.respond }),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined, safeError: () => undefined },
  });
  const serve = handle(app);
  return async (event, context) => serve((bodies === undefined ? event : bodies.withoutBody(event)) as never, context as never) as Promise<LambdaHttpResponse>;
}

let lastErrorBody = '';

/** A returning client's login (its device token presented, the one answered kept), through the given handler. */
async function login(handler: Handler): Promise<number> {
  const s = ready();
  const body = JSON.stringify({ email: s.email, password: s.password, ...(s.deviceToken !== undefined && { deviceToken: s.deviceToken }) });
  const response = await handler(httpEvent('/login', body, '198.51.100.7'), lambdaContext());
  lastErrorBody = response.statusCode >= 400 ? String(response.body).slice(0, 300) : '';
  if (response.statusCode === 200) {
    const token = (JSON.parse(String(response.body)) as { deviceToken?: unknown }).deviceToken;
    if (typeof token === 'string') s.deviceToken = token;
  }
  return response.statusCode;
}

async function getItem(client: DynamoDBClient): Promise<number> {
  const s = ready();
  const command = new GetItemCommand({ TableName: s.config.storage.table, Key: { pk: { S: USER_KEY_PREFIX + s.email } }, ConsistentRead: true });
  return (await client.send(command)).Item === undefined ? 404 : 200;
}

const operations: Record<AbKind, () => Promise<number>> = {
  verify: async () => ((await ready().deps.hasher.verify(ready().stored, ready().password)).ok ? 200 : 401),
  login: () => login(ready().handlers.login),
  'login-sdk': () => login(ready().handlers['login-sdk']),
  'login-webcrypto': () => login(ready().handlers['login-webcrypto']),
  'login-streamless': () => login(ready().handlers['login-streamless']),
  'login-streams': () => login(ready().handlers['login-streams']),
  getitem: () => getItem(ready().clients.direct),
  'getitem-sdk': () => getItem(ready().clients.sdk),
  'getitem-sdk-uncached': () => getItem(ready().clients['sdk-uncached']),
  'sign-node': async () => ((await ready().signers.node.issue({ userId: ready().userId })).accessToken ? 200 : 500),
  'sign-webcrypto': async () => ((await ready().signers.webcrypto.issue({ userId: ready().userId })).accessToken ? 200 : 500),
};

async function init(email: string, password: string): Promise<AbReplies['init']> {
  const config = readConfig(process.env);
  const direct = newLambdaDynamoDbClient(config.storage, true);
  const withClient = (client: DynamoDBClient): Platform => ({ ...nodePlatformWithoutBlocklist, dynamoDb: () => client });
  await ensureTable(direct, config.storage.table, { maxWaitSeconds: 30 });

  const register = lambdaHandler([registerRoute], { register: () => buildRegisterDependencies(config, { ...nodePlatform, dynamoDb: () => direct }) });
  const registered = await register(httpEvent('/register', JSON.stringify({ email, password }), '198.51.100.9') as never, lambdaContext() as never);
  if (registered.statusCode !== 201) throw new Error(`registering the bench account answered ${registered.statusCode}`);

  const signer = (jwsSigner: CreateJwsSigner) => buildTokenService(config, { jwsSigner });
  const signers = { node: await signer(createNodeJwsSigner), webcrypto: await signer(createWebCryptoJwsSigner) };
  const depsOf = (client: DynamoDBClient, tokens: TokenService) => buildAuthDependencies(config, withClient(client), { tokens });
  const [deps, sdkDeps, webCryptoDeps] = await Promise.all([
    depsOf(direct, signers.node),
    depsOf(plainClient(config.storage), signers.node),
    depsOf(direct, signers.webcrypto),
  ]);
  const item = (await direct.send(new GetItemCommand({ TableName: config.storage.table, Key: { pk: { S: USER_KEY_PREFIX + email } }, ConsistentRead: true }))).Item;
  const [stored, userId] = [item?.passwordHash?.S, item?.userId?.S];
  if (stored === undefined || userId === undefined) throw new Error('the bench account was not stored');
  state = {
    config,
    email,
    password,
    stored,
    userId,
    deps,
    handlers: {
      login: lambdaHandler([loginRoute], { login: async () => deps }) as unknown as Handler,
      'login-sdk': lambdaHandler([loginRoute], { login: async () => sdkDeps }) as unknown as Handler,
      'login-webcrypto': lambdaHandler([loginRoute], { login: async () => webCryptoDeps }) as unknown as Handler,
      'login-streamless': apiHandler({ login: async () => deps }, true),
      'login-streams': apiHandler({ login: async () => deps }, false),
    },
    signers,
    clients: { direct, sdk: plainClient(config.storage), 'sdk-uncached': plainClient(config.storage, { cacheMiddleware: false }) },
  };
  // Up to PASSLANE_SESSIONS_PER_ACCOUNT, so every measured login is the at-cap case (bench/login.ts).
  const { perAccount } = config.sessions;
  for (let i = 0; i < perAccount; i++) {
    const status = await login(state.handlers.login);
    if (status !== 200) throw new Error(`logging the account in answered ${status} ${lastErrorBody}`.trim());
  }
  return { ok: true, perAccount };
}

async function measure(kind: AbKind, n: number, expected: number): Promise<AbReplies['batch']> {
  return { ok: true, ...(await measureBatch(n, operations[kind], expected, () => lastErrorBody)) };
}

process.on('message', (request: AbRequest) => {
  const reply: Promise<AbReply> = request.op === 'init' ? init(request.email, request.password) : measure(request.kind, request.n, request.expect);
  reply.then(
    (answer) => process.send?.(answer),
    (error: unknown) => process.send?.({ ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
