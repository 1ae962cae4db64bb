/**
 * The process that runs a bundled Lambda handler for `npm run bench:login` (bench/login.ts).
 * Bundled by the packaging code like a function and copied next to the handler's index.mjs, so
 * the probes below load the very `.node` binary and chunks the handler loads. The token
 * function's bundle, when given, is loaded from its own directory into the same process (its own
 * chunks, as in its own Lambda). Driven over IPC, one request at a time; it answers with CPU and
 * wall time per operation and status counts, never with a password, hash, token or email: the
 * refresh token of the session being refreshed stays in this process.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { generateHOTP } from '@oslojs/otp';
import { verifyRegistrationResponse } from '@simplewebauthn/server';
import { base64url } from 'jose';
import { newTotpSecret } from '../packages/server/src/features/mfa/totp.js';
import { AccountStore } from '../packages/server/src/storage/account-store.js';
import { MfaStore } from '../packages/server/src/storage/mfa-store.js';
import { mfaKey } from '../packages/server/src/storage/table.js';
import { PasskeyStore } from '../packages/server/src/storage/passkey-store.js';
import { webAuthnUserHandle } from '../packages/server/src/webauthn/webauthn-user.js';
import { softwareAuthenticator } from '../test/support/software-authenticator.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import type { HashDescription, PasswordHasher } from '../packages/passlane/src/create-password-hasher.js';
import type { LambdaHttpEvent, LambdaHttpResponse } from '../packages/server/src/runtimes/lambda/lambda-handler.js';
import { metrics } from '../packages/server/src/observability/metrics.js';
import { ensureTable, USER_KEY_PREFIX } from '../packages/server/src/storage/table.js';
import type { TokenService } from '../packages/server/src/features/tokens/token-service.js';
import { buildFingerprint, buildHasher, buildSecretBox, buildTokenService } from '../packages/server/src/wiring/build-dependencies.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { httpEvent, lambdaContext, measureBatch } from './lambda-harness.js';

/** The page the software authenticator answers from (PASSLANE_WEBAUTHN_ORIGINS of the bench's env). */
export const BENCH_WEBAUTHN = { rpId: 'bench.example', origin: 'https://app.bench.example' };

/** What a bench account is for: the returning logins, the refreshes, or logins as new devices. */
export type AccountRole = 'login' | 'refresh' | 'new-device' | 'totp' | 'passkey' | 'passkey-mfa';

export type WorkerKind = 'login' | 'login-new-device' | 'login-totp' | 'login-passkey' | 'login-passkey-mfa' | 'login-unknown' | 'refresh' | 'refresh-bad' | 'bad-request' | 'verify' | 'getitem' | 'sign' | 'log';

export type WorkerRequest =
  | { op: 'init'; handlerFile: string; tokenHandlerFile?: string; passkeyLoginHandlerFile?: string }
  | { op: 'register'; email: string; password: string }
  | { op: 'prepare'; email: string; password: string }
  /**
   * Logs the account in through the login handler until it holds PASSLANE_SESSIONS_PER_ACCOUNT
   * sessions (none ends: the last login takes the last place). With `refresh`, the last
   * session's refresh token is kept here for the refresh measurements.
   */
  | { op: 'fill-sessions'; email: string; password: string; role: AccountRole }
  /** Turns TOTP on for the `totp` account, writing its factors item as a confirm would (a secret kept here only). */
  | { op: 'enrol-totp' }
  /** Registers a passkey of a software authenticator for the `passkey` and `passkey-mfa` accounts, writing what a registration writes. */
  | { op: 'enrol-passkeys' }
  | { op: 'batch'; kind: WorkerKind; n: number; expect: number };

/** What each request answers when it succeeds. */
export interface WorkerReplies {
  init: { ok: true };
  register: { ok: true; status: number };
  prepare: { ok: true; description: HashDescription; needsRehash: boolean; backend: string };
  'fill-sessions': { ok: true; perAccount: number };
  'enrol-totp': { ok: true };
  'enrol-passkeys': { ok: true };
  batch: {
    ok: true;
    cpuMs: number[];
    wallMs: number[];
    statuses: Record<string, number>;
    stdoutLines: number;
    /** The first error answer that was not the expected one: the API's error body, as a client sees it. */
    unexpected?: string;
  };
}

export type WorkerReply = WorkerReplies[keyof WorkerReplies] | { ok: false; error: string };

type Handler = (event: LambdaHttpEvent, context: unknown) => Promise<LambdaHttpResponse>;

interface State {
  handler?: Handler;
  tokenHandler?: Handler;
  passkeyLoginHandler?: Handler;
  /** The live refresh token of the session the refresh measurements use; each refresh replaces it. */
  refreshToken?: string;
  /** The device token the logins present, as a returning browser's cookie or an app's field would (LIMITS.md, "Known devices"). */
  deviceToken?: string;
  /** The account whose logins present no device token: a client's first login, each a new device. */
  newDevice?: { email: string; password: string };
  /** The account with TOTP: its credentials, device token, factors item key and secret (never passed on). */
  totp?: { email: string; password: string; deviceToken: string; accountKey?: string; secret?: Uint8Array };
  /** The accounts with a passkey (passwordless, and as a second factor): the authenticator holding it stays here. */
  passkeys: Partial<Record<'passkey' | 'passkey-mfa', PasskeyAccount>>;
  email?: string;
  password?: string;
  stored?: string;
  userId?: string;
  hasher?: PasswordHasher;
  tokens?: TokenService;
  dynamoDb?: DynamoDBClient;
  table?: string;
}

interface PasskeyAccount {
  email: string;
  password: string;
  deviceToken: string;
  authenticator: ReturnType<typeof softwareAuthenticator>;
}

const state: State = { passkeys: {} };
const config = () => readConfig(process.env);

// Lines the handler writes (Powertools logs, EMF metrics), counted here where they are written;
// the parent drains the pipe and shows none of them.
let stdoutLines = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) stdoutLines++;
  return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} is not set up`);
  return value;
};

let lastErrorBody = '';

async function call(handler: Handler | undefined, path: string, body: string, sourceIp: string): Promise<LambdaHttpResponse> {
  const response = await need(handler, `the handler of ${path}`)(httpEvent(path, body, sourceIp), lambdaContext());
  // Error bodies only: a 200 holds a token, which is never passed on.
  lastErrorBody = response.statusCode >= 400 ? response.body.slice(0, 300) : '';
  return response;
}

async function invoke(path: string, body: string, sourceIp: string): Promise<number> {
  return (await call(state.handler, path, body, sourceIp)).statusCode;
}

/** A token from a 200's JSON body (login's `refreshToken`, /token's `refresh_token`), kept here only. */
function tokenOf(response: LambdaHttpResponse, field: 'refreshToken' | 'refresh_token' | 'deviceToken'): string {
  const token = (JSON.parse(response.body) as Record<string, unknown>)[field];
  if (typeof token !== 'string' || token === '') throw new Error(`a 200 from the handler holds no ${field}`);
  return token;
}

/** POST /token with the session's live refresh token; a 200's new token replaces it. */
async function refresh(): Promise<number> {
  const body = JSON.stringify({ grant_type: 'refresh_token', refresh_token: need(state.refreshToken, 'the refresh session') });
  const response = await call(state.tokenHandler, '/token', body, '198.51.100.10');
  // Parsing the answer is the client's work, inside the window: a few microseconds.
  if (response.statusCode === 200) state.refreshToken = tokenOf(response, 'refresh_token');
  return response.statusCode;
}

/**
 * A well-formed refresh token of the live session with a wrong secret: the refresh reads the
 * session, finds the secret neither live nor spent, counts a failure for the source and answers
 * 401 (the session is untouched). A fresh address each time, so no source reaches its limit.
 */
function wrongSecret(): string {
  const [accountKey, sessionId] = need(state.refreshToken, 'the refresh session').split('.');
  return `${accountKey}.${sessionId}.${randomBytes(32).toString('base64url')}`;
}

const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const credentials = (deviceToken?: string) =>
  JSON.stringify({ email: need(state.email, 'the account'), password: need(state.password, 'the account'), ...(deviceToken !== undefined && { deviceToken }) });

/** One operation of each kind; each resolves to a status (HTTP, or 200 for the bare probes). */
const operations: Record<WorkerKind, () => Promise<number>> = {
  // A returning client: it presents the device token it holds, and keeps the one answered (the
  // same, unless its device was forgotten meanwhile), as a browser keeps the cookie.
  login: async () => {
    const response = await call(state.handler, '/login', credentials(need(state.deviceToken, 'the device token')), '198.51.100.7');
    if (response.statusCode === 200) state.deviceToken = tokenOf(response, 'deviceToken');
    return response.statusCode;
  },
  // A client's first login, on an account of its own (so the measured account's item keeps its
  // devices): a new device, and one more write, its source's count of good logins.
  'login-new-device': () => invoke('/login', JSON.stringify(need(state.newDevice, 'the new-device account')), '198.51.100.7'),
  // A returning client of an account with TOTP: the password step (401 mfa_required with an MFA
  // token), then POST /login/mfa with the authenticator's current code.
  'login-totp': async () => {
    const totp = need(state.totp, 'the TOTP account');
    const body = JSON.stringify({ email: totp.email, password: totp.password, deviceToken: totp.deviceToken });
    const step = await call(state.handler, '/login', body, '198.51.100.12');
    if (step.statusCode !== 401) return step.statusCode;
    const { mfaToken } = JSON.parse(step.body) as { mfaToken?: string };
    const code = generateHOTP(need(totp.secret, 'the TOTP secret'), BigInt(Math.floor(Date.now() / 30_000)), 6);
    const response = await call(state.handler, '/login/mfa', JSON.stringify({ mfaToken, method: 'totp', code, deviceToken: totp.deviceToken }), '198.51.100.12');
    if (response.statusCode === 200) totp.deviceToken = tokenOf(response, 'deviceToken');
    return response.statusCode;
  },
  // A passwordless login of a returning device: the options, the authenticator's assertion (its
  // ES256 signature, ~0.1 ms of the client's CPU, inside the figure) and POST /passkey/login.
  'login-passkey': async () => {
    const account = need(state.passkeys.passkey, 'the passkey account');
    const options = await call(state.passkeyLoginHandler, '/passkey/login/options', '', '198.51.100.13');
    if (options.statusCode !== 200) return options.statusCode;
    const response = await account.authenticator.authenticate(JSON.parse(options.body) as never);
    const login = await call(state.passkeyLoginHandler, '/passkey/login', JSON.stringify({ response, deviceToken: account.deviceToken }), '198.51.100.13');
    if (login.statusCode === 200) account.deviceToken = tokenOf(login, 'deviceToken');
    return login.statusCode;
  },
  // The password step (401 mfa_required with the passkey's options), the assertion (inside the
  // figure, as above) and POST /login/mfa, through the login handler.
  'login-passkey-mfa': async () => {
    const account = need(state.passkeys['passkey-mfa'], 'the passkey-mfa account');
    const step = await call(state.handler, '/login', JSON.stringify({ email: account.email, password: account.password, deviceToken: account.deviceToken }), '198.51.100.14');
    if (step.statusCode !== 401) return step.statusCode;
    const { mfaToken, webauthn } = JSON.parse(step.body) as { mfaToken?: string; webauthn?: unknown };
    const response = await account.authenticator.authenticate(webauthn as never);
    const login = await call(state.handler, '/login/mfa', JSON.stringify({ mfaToken, method: 'webauthn', response, deviceToken: account.deviceToken }), '198.51.100.14');
    if (login.statusCode === 200) account.deviceToken = tokenOf(login, 'deviceToken');
    return login.statusCode;
  },
  // A fresh email and address each time, so no failure counter or limit carries over.
  'login-unknown': () =>
    invoke('/login', JSON.stringify({ email: `unknown-${randomUUID()}@example.com`, password: need(state.password, 'the account') }), randomIp()),
  refresh,
  'refresh-bad': async () =>
    (await call(state.tokenHandler, '/token', JSON.stringify({ grant_type: 'refresh_token', refresh_token: wrongSecret() }), randomIp())).statusCode,
  'bad-request': () => invoke('/login', '{"email":', '198.51.100.8'),
  verify: async () => ((await need(state.hasher, 'the hasher').verify(need(state.stored, 'the stored hash'), need(state.password, 'the account'))).ok ? 200 : 401),
  getitem: async () => ((await readAccount()) ? 200 : 404),
  sign: async () => ((await need(state.tokens, 'the token service').issue({ userId: need(state.userId, 'the account') })).accessToken ? 200 : 500),
  // What a good login logs: its audit event (an INFO line and a count) and the EMF flush the
  // logMetrics middleware does after it, through a Powertools logger and metrics like the handler's.
  log: async () => {
    nodePlatform.audit({ type: 'auth.login_succeeded', userId: need(state.userId, 'the account') });
    metrics.publishStoredMetrics();
    return 200;
  },
};

/**
 * A TOTP code is accepted once per 30-second step (replay protection), and the bench logs in far
 * more often: before each measured login (outside its CPU and time) the stored step goes back.
 * dynalite counts this UpdateItem with the row's requests.
 */
async function resetTotpStep(): Promise<void> {
  const totp = need(state.totp, 'the TOTP account');
  await need(state.dynamoDb, 'the DynamoDB client').send(
    new UpdateItemCommand({
      TableName: need(state.table, 'the table'),
      Key: { pk: { S: mfaKey(need(totp.accountKey, 'the TOTP enrolment')) } },
      UpdateExpression: 'SET totpLastStep = :zero',
      ExpressionAttributeValues: { ':zero': { N: '0' } },
    }),
  );
}

/** The login's account read, bare: one consistent GetItem through a client configured as the handler's. */
async function readAccount() {
  const command = new GetItemCommand({ TableName: need(state.table, 'the table'), Key: { pk: { S: USER_KEY_PREFIX + need(state.email, 'the account') } }, ConsistentRead: true });
  return (await need(state.dynamoDb, 'the DynamoDB client').send(command)).Item;
}

async function measure(kind: WorkerKind, n: number, expected: number) {
  const linesBefore = stdoutLines;
  const batch = await measureBatch(n, operations[kind], expected, () => lastErrorBody, kind === 'login-totp' ? resetTotpStep : undefined);
  return { ...batch, stdoutLines: stdoutLines - linesBefore };
}

async function handle(request: WorkerRequest): Promise<WorkerReply> {
  switch (request.op) {
    case 'init': {
      const load = async (file: string) => ((await import(pathToFileURL(file).href)) as { handler: Handler }).handler;
      state.handler = await load(request.handlerFile);
      if (request.tokenHandlerFile !== undefined) state.tokenHandler = await load(request.tokenHandlerFile);
      if (request.passkeyLoginHandlerFile !== undefined) state.passkeyLoginHandler = await load(request.passkeyLoginHandlerFile);
      return { ok: true } satisfies WorkerReplies['init'];
    }
    case 'register': {
      const { storage } = config();
      await ensureTable(nodePlatform.dynamoDb(storage), storage.table, { maxWaitSeconds: 30 });
      const status = await invoke('/register', JSON.stringify({ email: request.email, password: request.password }), '198.51.100.9');
      return { ok: true, status } satisfies WorkerReplies['register'];
    }
    case 'prepare': {
      // The probes are built as the handler builds its own (src/wiring), from the same env.
      const current = config();
      state.email = request.email;
      state.password = request.password;
      state.hasher = buildHasher(current, nodePlatform);
      state.tokens = await buildTokenService(current, nodePlatform);
      state.dynamoDb = nodePlatform.dynamoDb(current.storage);
      state.table = current.storage.table;
      const item = await readAccount();
      state.stored = need(item?.passwordHash?.S, 'the registered account');
      state.userId = need(item?.userId?.S, 'the registered account');
      return {
        ok: true,
        description: state.hasher.describe(state.stored),
        needsRehash: state.hasher.needsRehash(state.stored),
        backend: await state.hasher.backendName(),
      } satisfies WorkerReplies['prepare'];
    }
    case 'fill-sessions': {
      const { perAccount } = config().sessions;
      const body = JSON.stringify({ email: request.email, password: request.password });
      let last: LambdaHttpResponse | undefined;
      for (let i = 0; i < perAccount; i++) {
        last = await call(state.handler, '/login', body, '198.51.100.11');
        if (last.statusCode !== 200) throw new Error(`logging the account in answered ${last.statusCode} ${lastErrorBody}`.trim());
      }
      if (last === undefined) throw new Error('no login to fill the sessions with');
      if (request.role === 'refresh') state.refreshToken = tokenOf(last, 'refreshToken');
      if (request.role === 'login') state.deviceToken = tokenOf(last, 'deviceToken');
      if (request.role === 'new-device') state.newDevice = { email: request.email, password: request.password };
      if (request.role === 'totp') state.totp = { email: request.email, password: request.password, deviceToken: tokenOf(last, 'deviceToken') };
      if (request.role === 'passkey' || request.role === 'passkey-mfa') {
        const authenticator = softwareAuthenticator({ origin: BENCH_WEBAUTHN.origin });
        state.passkeys[request.role] = { email: request.email, password: request.password, deviceToken: tokenOf(last, 'deviceToken'), authenticator };
      }
      return { ok: true, perAccount } satisfies WorkerReplies['fill-sessions'];
    }
    case 'enrol-totp': {
      const current = config();
      const totp = need(state.totp, 'the TOTP account');
      const users = new AccountStore(nodePlatform.dynamoDb(current.storage), current.storage.table);
      const user = need(await users.getUserByEmail(totp.email), 'the TOTP account');
      totp.accountKey = (await buildFingerprint(current))(totp.email);
      totp.secret = newTotpSecret();
      const sealed = await buildSecretBox(current).seal(totp.accountKey, totp.secret);
      const mfa = new MfaStore(nodePlatform.dynamoDb(current.storage), current.storage.table);
      if (!(await mfa.putPending(totp.accountKey, user.userId, sealed, Math.floor(Date.now() / 1000) + 600))) throw new Error('the TOTP account has TOTP already');
      if (!(await mfa.activate(totp.accountKey, sealed, 0, Math.floor(Date.now() / 1000)))) throw new Error('the TOTP enrolment was lost');
      return { ok: true } satisfies WorkerReplies['enrol-totp'];
    }
    case 'enrol-passkeys': {
      const current = config();
      const client = nodePlatform.dynamoDb(current.storage);
      const users = new AccountStore(client, current.storage.table);
      const passkeys = new PasskeyStore(client, current.storage.table);
      const fingerprint = await buildFingerprint(current);
      for (const account of Object.values(state.passkeys)) {
        const user = need(await users.getUserByEmail(account.email), 'the passkey account');
        const challenge = base64url.encode(randomBytes(32));
        const creation = {
          rp: { id: BENCH_WEBAUTHN.rpId, name: 'passlane-bench' },
          user: { id: base64url.encode(webAuthnUserHandle(user.userId)), name: account.email, displayName: account.email },
          challenge,
          pubKeyCredParams: [{ type: 'public-key' as const, alg: -7 }],
        };
        const response = await account.authenticator.register(creation);
        const verified = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: BENCH_WEBAUTHN.origin, expectedRPID: BENCH_WEBAUTHN.rpId });
        if (!verified.verified) throw new Error('the bench passkey did not verify');
        const { credential, aaguid } = verified.registrationInfo;
        const accountKey = fingerprint(account.email);
        const now = Math.floor(Date.now() / 1000);
        if (!(await passkeys.putLookup(credential.id, { userId: user.userId, accountKey, email: account.email }))) throw new Error('the bench passkey is registered already');
        const passkey = { publicKey: credential.publicKey, counter: credential.counter, transports: ['internal'], backupEligible: false, backedUp: false, name: 'bench', createdAt: now, aaguid };
        if (!(await passkeys.add(accountKey, { userId: user.userId, credentialId: credential.id, passkey, max: 10, hadPasskeys: false }))) throw new Error('the bench passkey was not added');
      }
      return { ok: true } satisfies WorkerReplies['enrol-passkeys'];
    }
    case 'batch':
      return { ok: true, ...(await measure(request.kind, request.n, request.expect)) } satisfies WorkerReplies['batch'];
  }
}

process.on('message', (request: WorkerRequest) => {
  handle(request).then(
    (reply) => process.send?.(reply),
    // The message only: an error from the SDK or the handler names no secret, but a stack is noise.
    (error: unknown) => process.send?.({ ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
