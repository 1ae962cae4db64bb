/**
 * Sign-in events (issue 37, src/events/README.md "Sign-in events"): with PASSLANE_EVENTS and
 * PASSLANE_EVENTS_SIGN_IN on, every way in (a password, a TOTP second factor, a passkey alone, a
 * provider's app code) appends one `session.started` to the account's outbox in the very
 * TransactWriteItems that writes the session, naming the access tokens' `sid`, `amr` and
 * `client_id`, never a token; a login answered `mfa_required`, a failed one and a refresh append
 * nothing; with PASSLANE_EVENTS alone a login appends nothing and sends no transaction. On AWS's
 * DynamoDB Local (it has transactions), through the API in process (hono), a software
 * authenticator and a clock the test moves.
 */
import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createHash, randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessApi, type ApiAnswer } from './support/in-process-api.js';
import { readEventsConfig } from '../packages/server/src/config/events-config.js';
import type { AccountEvent } from '../packages/server/src/events/account-event.js';
import { newFlowSecret } from '../packages/server/src/features/federation/flow-secrets.js';
import { redeemAppCode } from '../packages/server/src/features/federation/redeem-app-code.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { register } from '../packages/server/src/features/register/register.js';
import { outboxKey } from '../packages/server/src/storage/event-outbox.js';
import { createAuthFixture, sessionToken, uniqueEmail } from './support/auth-fixture.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { movableClock } from './support/clock.js';
import { startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';

const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.7';
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };

type Answer = ApiAnswer;

/** A fixture whose API runs in process; every TransactWriteItems is kept as the keys of its items. */
async function fixture(endpoint: string, options: { events: boolean; signInEvents: boolean }) {
  // 10 minutes back: tests move it forward (TOTP steps), and tokens verified at the real time must not be from the future.
  const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 590_000);
  const made = await createAuthFixture(endpoint, { now: clock.now, webauthn: WEBAUTHN }, options);
  const commands: string[] = [];
  const transactions: string[][] = [];
  made.client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(context.commandName ?? '');
      if (context.commandName === 'TransactWriteItemsCommand') {
        const items = (args.input as { TransactItems: Array<Record<string, { Key?: Record<string, AttributeValue>; Item?: Record<string, AttributeValue> }>> }).TransactItems;
        transactions.push(items.map((item) => Object.values(item)[0]!).map((write) => (write.Key ?? write.Item)!.pk!.S!));
      }
      return next(args);
    },
    { step: 'initialize', name: 'transactionLog' },
  );
  const call = inProcessApi(made.deps, SOURCE);
  /** A registered account (its user.registered in the outbox when events are on). */
  const account = async () => {
    const email = uniqueEmail();
    const made2 = await register(made.deps, { email, password: PASSWORD });
    const userId = 'userId' in made2 ? made2.userId : (await made.users.getUserByEmail(email))!.userId;
    return { email, userId, accountKey: made.deps.fingerprint(email) };
  };
  const rawOutbox = async (userId: string) => rawOutboxOf(made.client, made.tableName, userId);
  const signIns = async (userId: string) => (await eventsOf(made.client, made.tableName, userId)).filter((event) => event.type === 'session.started');
  return { ...made, clock, commands, transactions, call, account, rawOutbox, signIns, eventsOf: (userId: string) => eventsOf(made.client, made.tableName, userId) };
}

async function rawOutboxOf(client: DynamoDBClient, tableName: string, userId: string): Promise<Record<string, AttributeValue> | undefined> {
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: outboxKey(userId) } }, ConsistentRead: true }))).Item;
}

async function eventsOf(client: DynamoDBClient, tableName: string, userId: string): Promise<AccountEvent[]> {
  const item = await rawOutboxOf(client, tableName, userId);
  return (item?.events?.L ?? []).map((entry) => {
    const m = entry.M!;
    return { id: m.id!.S!, type: m.type!.S!, time: m.time!.S!, accountId: m.accountId!.S!, data: JSON.parse(m.data!.S!) } as AccountEvent;
  });
}

/** What a login answered that must never reach an event. */
function secretsOf(answer: Answer): string[] {
  return ['accessToken', 'refreshToken', 'deviceToken'].map((name) => answer.body[name]).filter((value): value is string => typeof value === 'string');
}

describe('sign-in events on DynamoDB Local (the session and its event: one transaction)', () => {
  let server: RunningDynamoDb;
  beforeAll(async () => {
    server = await startDynamoDbLocal();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('a password login: one session.started naming the token\'s sid, amr and client_id, in the session\'s own transaction, nothing secret', async () => {
    const f = await fixture(server.endpoint, { events: true, signInEvents: true });
    const { email, userId, accountKey } = await f.account();
    // A wrong password first: a failure appends nothing.
    expect((await f.call('POST', '/login', { body: { email, password: 'not the password at all' } })).status).toBe(401);
    expect(await f.signIns(userId)).toEqual([]);
    f.transactions.length = 0;
    const login = await f.call('POST', '/login', { body: { email, password: PASSWORD } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const claims = decodeJwt(login.body.accessToken as string);
    const events = await f.eventsOf(userId);
    expect(events.map((event) => event.type)).toEqual(['user.registered', 'session.started']);
    expect(events[1]).toEqual({ id: expect.stringMatching(/^evt_[0-9a-f]{32}$/), type: 'session.started', time: f.clock.now().toISOString(), accountId: userId, data: { sessionId: claims.sid, amr: ['pwd'], clientId: claims.client_id } });
    expect(claims.client_id).toBe('passlane');
    // The session's write and the append, one TransactWriteItems; no other transaction.
    expect(f.transactions).toEqual([[`sessions#${accountKey}`, outboxKey(userId)]]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    const { passwordHash } = (await f.users.getUserByEmail(email))!;
    for (const secret of [PASSWORD, passwordHash, ...secretsOf(login)]) expect(stored).not.toContain(secret);
    // The refresh token's secret (its last part) is not there either, in any form.
    expect(stored).not.toContain((login.body.refreshToken as string).split('.').at(-1));
    expect(f.outbox.usedTransactions).toBe(true);

    // A refresh starts no session: nothing appended, no transaction.
    f.transactions.length = 0;
    const refreshed = await f.call('POST', '/token', { body: { grant_type: 'refresh_token', refresh_token: login.body.refreshToken } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await f.signIns(userId)).toHaveLength(1);
    expect(f.transactions).toEqual([]);
    f.dispose();
  });

  it('a TOTP second factor: mfa_required appends nothing, the code\'s login appends one session.started with pwd, otp, mfa', async () => {
    const f = await fixture(server.endpoint, { events: true, signInEvents: true });
    const { email, userId, accountKey } = await f.account();
    // Enrolled through a session started without a login (auth-fixture's sessionToken): no sign-in event.
    const token = await sessionToken(f.deps, { email, userId });
    const enrolled = await f.call('POST', '/mfa/totp', { token });
    const secret = base32Bytes(enrolled.body.secret as string);
    const confirmed = await f.call('POST', '/mfa/totp/confirm', { token, body: { code: totpCode(secret, f.clock.now().getTime()) } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    f.clock.advance(30);
    f.transactions.length = 0;
    const challenge = await f.call('POST', '/login', { body: { email, password: PASSWORD } });
    expect(challenge).toMatchObject({ status: 401, body: { error: { code: 'mfa_required' } } });
    expect(await f.signIns(userId)).toEqual([]);
    const code = totpCode(secret, f.clock.now().getTime());
    const done = await f.call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'totp', code } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const claims = decodeJwt(done.body.accessToken as string);
    expect((await f.signIns(userId)).map((event) => event.data)).toEqual([{ sessionId: claims.sid, amr: ['pwd', 'otp', 'mfa'], clientId: 'passlane' }]);
    expect(f.transactions).toEqual([[`sessions#${accountKey}`, outboxKey(userId)]]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const value of [enrolled.body.secret as string, code, challenge.body.mfaToken as string, ...secretsOf(done)]) expect(stored).not.toContain(value);
    f.dispose();
  });

  it('a passkey alone (POST /passkey/login): one session.started with its amr, in the session\'s transaction', async () => {
    const f = await fixture(server.endpoint, { events: true, signInEvents: true });
    const { email, userId, accountKey } = await f.account();
    const token = await sessionToken(f.deps, { email, userId });
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const options = await f.call('POST', '/passkeys/registration/options', { token });
    const registered = await f.call('POST', '/passkeys/registration', { token, body: { response: await authenticator.register(options.body as unknown as PublicKeyCredentialCreationOptionsJSON) } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    f.transactions.length = 0;
    const response: AuthenticationResponseJSON = await authenticator.authenticate((await f.call('POST', '/passkey/login/options')).body as unknown as PublicKeyCredentialRequestOptionsJSON);
    const login = await f.call('POST', '/passkey/login', { body: { response } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const claims = decodeJwt(login.body.accessToken as string);
    expect((await f.signIns(userId)).map((event) => event.data)).toEqual([{ sessionId: claims.sid, amr: claims.amr, clientId: 'passlane' }]);
    expect(claims.amr).toContain('mfa');
    expect(f.transactions).toEqual([[`sessions#${accountKey}`, outboxKey(userId)]]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const value of [...secretsOf(login), response.response.signature]) expect(stored).not.toContain(value);
    f.dispose();
  });

  it('a provider\'s first sign-in (POST /oauth/token\'s use case): user.registered, then session.started with amr fed', async () => {
    const f = await fixture(server.endpoint, { events: true, signInEvents: true });
    const email = uniqueEmail();
    const code = newFlowSecret();
    const verifier = randomBytes(32).toString('base64url');
    const appCodeChallenge = createHash('sha256').update(verifier).digest('base64url');
    const payload = { provider: 'oidc', subject: `sub-${crypto.randomUUID()}`, email, emailVerified: true, providerMfa: false, appCodeChallenge };
    await f.deps.flows.put('code', code.hash, { payload: JSON.stringify(payload), expiresAt: Math.floor(f.clock.now().getTime() / 1000) + 60 });
    const result = await redeemAppCode(f.deps, { code: code.secret, codeVerifier: verifier, sourceIp: SOURCE });
    if (result.kind !== 'session') throw new Error(`expected a session, got ${result.kind}`);
    const claims = decodeJwt(result.accessToken);
    const userId = claims.sub!;
    const events = await f.eventsOf(userId);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['user.registered', { email, method: 'federated', provider: 'oidc' }],
      ['session.started', { sessionId: claims.sid, amr: ['fed'], clientId: 'passlane' }],
    ]);
    expect(f.transactions.at(-1)).toEqual([`sessions#${f.deps.fingerprint(email)}`, outboxKey(userId)]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const value of [result.accessToken, result.refreshToken, result.deviceToken, code.secret, verifier]) expect(stored).not.toContain(value);
    f.dispose();
  });

  it('with PASSLANE_EVENTS alone: a login appends nothing and writes its session as one UpdateItem', async () => {
    const f = await fixture(server.endpoint, { events: true, signInEvents: false });
    const { email, userId } = await f.account();
    f.commands.length = 0;
    const login = await f.call('POST', '/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect((await f.eventsOf(userId)).map((event) => event.type)).toEqual(['user.registered']);
    expect(f.commands).not.toContain('TransactWriteItemsCommand');
    f.dispose();
  });

  it('with sign-in events on but PASSLANE_EVENTS off: nothing at all (one switch stops every event)', async () => {
    const f = await fixture(server.endpoint, { events: false, signInEvents: true });
    const { email, userId } = await f.account();
    expect((await f.call('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    expect(await f.rawOutbox(userId)).toBeUndefined();
    expect(f.commands).not.toContain('TransactWriteItemsCommand');
    f.dispose();
  });
});

describe('PASSLANE_EVENTS_SIGN_IN', () => {
  it('is off by default, on only with PASSLANE_EVENTS=on, and refuses anything but on and off', () => {
    expect(readEventsConfig({})).toStrictEqual({ enabled: false });
    expect(readEventsConfig({ PASSLANE_EVENTS: 'on' })).toStrictEqual({ enabled: true });
    expect(readEventsConfig({ PASSLANE_EVENTS: 'on', PASSLANE_EVENTS_SIGN_IN: 'off' })).toStrictEqual({ enabled: true });
    expect(readEventsConfig({ PASSLANE_EVENTS: 'on', PASSLANE_EVENTS_SIGN_IN: 'on' })).toStrictEqual({ enabled: true, signIn: true });
    expect(readEventsConfig({ PASSLANE_EVENTS_SIGN_IN: 'on' })).toStrictEqual({ enabled: false });
    expect(() => readEventsConfig({ PASSLANE_EVENTS: 'on', PASSLANE_EVENTS_SIGN_IN: 'yes' })).toThrow(/PASSLANE_EVENTS_SIGN_IN must be one of on, off/);
  });
});
