/**
 * Account events recorded with each change (issue 37, src/events/README.md): every use case that
 * changes an account appends its event to the account's outbox item in the same write, read here
 * from the table itself; with recording off, no outbox item and no transaction; a lost condition
 * of the change keeps the store's typed error and appends nothing; concurrent changes of one
 * account list their events in commit order. The transactional path on AWS's DynamoDB Local; the
 * ordered writes of a server without transactions on dynalite. Through the API (hono, in process)
 * and the use cases, with captured mail, a software authenticator and a clock the test moves.
 */
import { GetItemCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { AccountExistsConflictError } from '../packages/server/src/accounts/errors.js';
import { nodePlatform } from '../packages/server/src/runtimes/node/node-platform.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { buildAuthDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { inProcessApi } from './support/in-process-api.js';
import type { AccountEvent } from '../packages/server/src/events/account-event.js';
import { disableAccount, enableAccount } from '../packages/server/src/features/account/disable-account.js';
import { deleteAccount } from '../packages/server/src/features/account/delete-account.js';
import { removeFactor } from '../packages/server/src/features/account/remove-factor.js';
import { linkIdentity, removeIdentity } from '../packages/server/src/features/federation/manage-identities.js';
import { resolveIdentity } from '../packages/server/src/features/federation/resolve-identity.js';
import { newFlowSecret } from '../packages/server/src/features/federation/flow-secrets.js';
import { createMigratedAccount } from '../packages/server/src/features/migration/migrate-account.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { register } from '../packages/server/src/features/register/register.js';
import { AccountExistsError, HashChangedError } from '../packages/server/src/storage/errors.js';
import { outboxKey } from '../packages/server/src/storage/event-outbox.js';
import { OUTBOX_KEY_PREFIX } from '../packages/server/src/storage/table.js';
import { createAccountEvent } from '../packages/server/src/events/account-event.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { asCaller, createAuthFixture, sessionToken, uniqueEmail } from './support/auth-fixture.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { movableClock } from './support/clock.js';
import { startDynalite, startDynamoDbLocal, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const SOURCE = '198.51.100.7';
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };
const OPERATOR = { kind: 'operator', id: 'arn:aws:iam::123456789012:user/support' } as const;


/** A fixture on `endpoint` with its API in process, every call the client sends named in `commands`. */
async function fixture(endpoint: string, options: { events: boolean; overrides?: Partial<AppDependencies> }) {
  // 10 minutes back: tests move it forward (TOTP steps), and tokens verified at the real time must not be from the future.
  const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 590_000);
  const made = await createAuthFixture(endpoint, { now: clock.now, webauthn: WEBAUTHN, ...options.overrides }, { events: options.events });
  const commands: string[] = [];
  made.client.middlewareStack.add((next, context) => (args) => (commands.push(context.commandName ?? ''), next(args)), { step: 'initialize', name: 'commandLog' });
  const call = inProcessApi(made.deps, SOURCE);
  /** A registered account, and a live session of it (`amr`: what its login used). */
  const account = async (amr?: readonly string[]) => {
    const email = uniqueEmail();
    const made2 = await register(made.deps, { email, password: PASSWORD });
    const userId = 'userId' in made2 ? made2.userId : (await made.users.getUserByEmail(email))!.userId;
    return { email, userId, token: await sessionToken(made.deps, { email, userId }, amr) };
  };
  return { ...made, clock, commands, call, account, outbox: made.outbox, eventsOf: (userId: string) => eventsOf(made.client, made.tableName, userId), rawOutbox: (userId: string) => rawOutbox(made.client, made.tableName, userId) };
}

async function rawOutbox(client: DynamoDBClient, tableName: string, userId: string): Promise<Record<string, AttributeValue> | undefined> {
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: outboxKey(userId) } }, ConsistentRead: true }))).Item;
}

/** The account's outbox as delivery reads it: each entry's fields, `data` parsed. */
async function eventsOf(client: DynamoDBClient, tableName: string, userId: string): Promise<AccountEvent[]> {
  const item = await rawOutbox(client, tableName, userId);
  return (item?.events?.L ?? []).map((entry) => {
    const m = entry.M!;
    return { id: m.id!.S!, type: m.type!.S!, time: m.time!.S!, accountId: m.accountId!.S!, data: JSON.parse(m.data!.S!) } as AccountEvent;
  });
}

const summary = (events: readonly AccountEvent[]) => events.map((event) => ({ type: event.type, accountId: event.accountId, data: event.data }));

describe('account events on DynamoDB Local (each change and its event: one transaction)', () => {
  let server: RunningDynamoDb;
  beforeAll(async () => {
    server = await startDynamoDbLocal();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('register and verify: user.registered then email.verified, each entry as the outbox item stores it, nothing secret', async () => {
    const f = await fixture(server.endpoint, { events: true, overrides: { recovery: { ...(await import('../packages/server/src/features/recovery/settings.js')).DEFAULT_RECOVERY_CONFIG, emailVerification: true } } });
    const email = uniqueEmail();
    expect(await register(f.deps, { email, password: PASSWORD })).toEqual({ verification: 'sent' });
    const { userId, passwordHash } = (await f.users.getUserByEmail(email))!;
    const verifyToken = f.mailbox.last('email_verification')!.token;
    expect((await f.call('POST', '/email/verify', { body: { token: verifyToken } })).status).toBe(204);

    const item = (await f.rawOutbox(userId))!;
    // The layout table.ts states: a list of maps of strings, and the oldest append's time.
    expect(Object.keys(item).sort()).toEqual(['events', 'pendingSince', 'pk']);
    const entries = item.events!.L!;
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(Object.keys(entry.M!).sort()).toEqual(['accountId', 'data', 'id', 'time', 'type']);
    const events = await f.eventsOf(userId);
    expect(summary(events)).toEqual([
      { type: 'user.registered', accountId: userId, data: { email, method: 'password' } },
      { type: 'email.verified', accountId: userId, data: { email } },
    ]);
    expect(events[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    // Stamped with the dependencies' clock; pendingSince is the first append's time.
    expect(events[0]!.time).toBe(f.clock.now().toISOString());
    expect(item.pendingSince!.N).toBe(String(Math.floor(Date.parse(events[0]!.time) / 1000)));
    const stored = JSON.stringify(item);
    for (const secret of [PASSWORD, passwordHash, verifyToken]) expect(stored).not.toContain(secret);
    expect(f.outbox.usedTransactions).toBe(true);
    f.dispose();
  });

  it('password change and reset: password.changed by the owner, password.reset, and the mailbox proved by the reset', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    expect((await f.call('POST', '/password', { token, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(204);
    expect((await f.call('POST', '/password/reset', { body: { email } })).status).toBe(202);
    const resetToken = f.mailbox.last('password_reset')!.token;
    expect((await f.call('POST', '/password/reset/confirm', { body: { token: resetToken, newPassword: PASSWORD } })).status).toBe(204);
    const events = await f.eventsOf(userId);
    expect(summary(events)).toEqual([
      { type: 'user.registered', accountId: userId, data: { email, method: 'password' } },
      { type: 'password.changed', accountId: userId, data: { by: 'owner' } },
      { type: 'password.reset', accountId: userId, data: { by: 'owner' } },
      { type: 'email.verified', accountId: userId, data: { email } },
    ]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const secret of [PASSWORD, NEW_PASSWORD, resetToken, (await f.users.getUserByEmail(email))!.passwordHash]) expect(stored).not.toContain(secret);
    f.dispose();
  });

  it('a change of address and its undo: email.changed by the owner and back by the link, the password locked, one outbox for the account throughout', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    const newEmail = uniqueEmail();
    expect((await f.call('POST', '/email/change', { token, body: { newEmail } })).status).toBe(202);
    const changeToken = f.mailbox.last('email_change')!.token;
    expect((await f.call('POST', '/email/change/confirm', { body: { token: changeToken } })).status).toBe(204);
    expect((await f.users.getUserByEmail(newEmail))?.userId).toBe(userId);
    const undoToken = f.mailbox.sent.filter((mail) => mail.kind === 'email_changed').at(-1)!.token!;
    expect((await f.call('POST', '/email/change/undo', { body: { token: undoToken } })).body).toEqual({ emailRestored: true });
    expect(summary(await f.eventsOf(userId))).toEqual([
      { type: 'user.registered', accountId: userId, data: { email, method: 'password' } },
      { type: 'email.changed', accountId: userId, data: { from: email, to: newEmail, by: 'owner' } },
      { type: 'email.changed', accountId: userId, data: { from: newEmail, to: email, by: 'undo_link' } },
      { type: 'password.changed', accountId: userId, data: { by: 'undo_link' } },
    ]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const secret of [changeToken, undoToken]) expect(stored).not.toContain(secret);
    f.dispose();
  });

  it('TOTP on and off, and its "this wasn\'t me" link: factor.added, factor.removed by the owner and by the link, never the secret or a code', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    const enrol = async (session: string) => {
      const enrolled = await f.call('POST', '/mfa/totp', { token: session });
      expect(enrolled.status).toBe(200);
      const secret = base32Bytes(enrolled.body.secret as string);
      const code = totpCode(secret, f.clock.now().getTime());
      const confirmed = await f.call('POST', '/mfa/totp/confirm', { token: session, body: { code } });
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
      return { secret, base32: enrolled.body.secret as string, code, recoveryCodes: confirmed.body.recoveryCodes as string[] | undefined };
    };
    const first = await enrol(token);
    f.clock.advance(30);
    const withFactor = await sessionToken(f.deps, { email, userId }, ['pwd', 'otp', 'mfa']);
    const removal = await f.call('DELETE', '/mfa/totp', { token: withFactor, body: { method: 'totp', code: totpCode(first.secret, f.clock.now().getTime()) } });
    expect(removal.status, JSON.stringify(removal.body)).toBe(204);
    const second = await enrol(withFactor);
    const undoToken = f.mailbox.last('factor_added')!.token;
    expect((await f.call('POST', '/mfa/undo', { body: { token: undoToken } })).body).toEqual({ factorRemoved: true });
    expect(summary(await f.eventsOf(userId))).toEqual([
      { type: 'user.registered', accountId: userId, data: { email, method: 'password' } },
      { type: 'factor.added', accountId: userId, data: { factor: 'totp' } },
      { type: 'factor.removed', accountId: userId, data: { factor: 'totp', by: 'owner' } },
      { type: 'factor.added', accountId: userId, data: { factor: 'totp' } },
      { type: 'factor.removed', accountId: userId, data: { factor: 'totp', by: 'undo_link' } },
      { type: 'password.changed', accountId: userId, data: { by: 'undo_link' } },
    ]);
    const stored = JSON.stringify(await f.rawOutbox(userId));
    for (const secret of [first.base32, second.base32, first.code, second.code, undoToken, ...(first.recoveryCodes ?? [])]) expect(stored).not.toContain(secret);
    f.dispose();
  });

  it('a passkey registered and removed: factor.added and factor.removed naming its credential id', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const options = await f.call('POST', '/passkeys/registration/options', { token });
    const response = await authenticator.register(options.body as unknown as PublicKeyCredentialCreationOptionsJSON);
    const registered = await f.call('POST', '/passkeys/registration', { token, body: { response } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const credentialId = (registered.body.passkey as { id: string }).id;
    const withFactor = await sessionToken(f.deps, { email, userId }, ['pwd', 'hwk', 'mfa']);
    expect((await f.call('DELETE', `/passkeys/${credentialId}`, { token: withFactor })).status).toBe(204);
    expect(summary(await f.eventsOf(userId)).slice(1)).toEqual([
      { type: 'factor.added', accountId: userId, data: { factor: 'passkey', credentialId } },
      { type: 'factor.removed', accountId: userId, data: { factor: 'passkey', credentialId, by: 'owner' } },
    ]);
    f.dispose();
  });

  it('an operator disables, enables, removes a factor and deletes; the owner deletes their own: each by whom', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    const enrolled = await f.call('POST', '/mfa/totp', { token });
    await f.call('POST', '/mfa/totp/confirm', { token, body: { code: totpCode(base32Bytes(enrolled.body.secret as string), f.clock.now().getTime()) } });
    await disableAccount(f.deps, { userId, actor: OPERATOR });
    await enableAccount(f.deps, { userId, actor: OPERATOR });
    expect(await removeFactor(f.deps, { userId, actor: OPERATOR, factor: 'totp' })).toEqual({ removed: true });
    await deleteAccount(f.deps, { userId, actor: OPERATOR });
    const by = `operator:${OPERATOR.id}`;
    expect(summary(await f.eventsOf(userId)).slice(2)).toEqual([
      { type: 'account.disabled', accountId: userId, data: { by } },
      { type: 'account.enabled', accountId: userId, data: { by } },
      { type: 'factor.removed', accountId: userId, data: { factor: 'totp', by } },
      { type: 'account.deleted', accountId: userId, data: { by } },
    ]);
    expect(await f.users.getUserByEmail(email)).toBeUndefined();

    const own = await f.account();
    expect((await f.call('DELETE', '/account', { token: own.token })).status).toBe(204);
    expect(summary(await f.eventsOf(own.userId))).toEqual([
      { type: 'user.registered', accountId: own.userId, data: { email: own.email, method: 'password' } },
      { type: 'account.deleted', accountId: own.userId, data: { by: 'owner' } },
    ]);
    f.dispose();
  });

  it('accounts made by a provider\'s first sign-in and by lazy migration, and an identity linked and unlinked', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const federatedEmail = uniqueEmail();
    const resolved = await resolveIdentity(f.deps, { provider: 'oidc', subject: 'sub-1', email: federatedEmail, emailVerified: true, providerMfa: false });
    expect(resolved.kind).toBe('account');
    const federatedId = (resolved as { user: { userId: string } }).user.userId;
    expect(summary(await f.eventsOf(federatedId))).toEqual([{ type: 'user.registered', accountId: federatedId, data: { email: federatedEmail, method: 'federated', provider: 'oidc' } }]);

    const migratedEmail = uniqueEmail();
    const migrated = await createMigratedAccount(f.deps, { email: migratedEmail, password: PASSWORD });
    if (migrated === 'taken') throw new Error('the migrated account was taken');
    expect(summary(await f.eventsOf(migrated.userId))).toEqual([{ type: 'user.registered', accountId: migrated.userId, data: { email: migratedEmail, method: 'migration' } }]);
    expect(JSON.stringify(await f.rawOutbox(migrated.userId))).not.toContain(migrated.passwordHash);

    const { email, userId, token } = await f.account();
    const link = newFlowSecret();
    await f.deps.flows.put('link', link.hash, { payload: JSON.stringify({ provider: 'oidc', subject: 'sub-2', userId, email }), expiresAt: Math.floor(f.clock.now().getTime() / 1000) + 600 });
    const identity = await asCaller(f.deps, token, 'recent', (caller) => linkIdentity(f.deps, { caller, linkToken: link.secret }));
    await asCaller(f.deps, token, 'recent', (caller) => removeIdentity(f.deps, { caller, id: identity.id }));
    expect(summary(await f.eventsOf(userId)).slice(1)).toEqual([
      { type: 'identity.linked', accountId: userId, data: { provider: 'oidc', identityId: identity.id } },
      { type: 'identity.unlinked', accountId: userId, data: { provider: 'oidc', identityId: identity.id, by: 'owner' } },
    ]);
    expect(JSON.stringify(await f.rawOutbox(userId))).not.toContain(link.secret);
    f.dispose();
  });

  it('a lost condition keeps the store\'s typed error, reads nothing more, and appends nothing', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId } = await f.account();
    const stored = (await f.users.getUserByEmail(email))!;
    const registered = () => [createAccountEvent('user.registered', 'other', { email, method: 'password' }, new Date())];
    f.commands.length = 0;
    // Another account's create of a taken address: the stored item came back with the cancellation, so no GetItem.
    await expect(f.users.createUser({ email, userId: 'other', passwordHash: stored.passwordHash, createdAt: new Date() }, registered())).rejects.toBeInstanceOf(AccountExistsError);
    expect(f.commands).toEqual(['TransactWriteItemsCommand']);
    // This account's own create landing again (an SDK retry of a write that landed): success, and no second event.
    await f.users.createUser({ email, userId, passwordHash: stored.passwordHash, createdAt: stored.createdAt }, [createAccountEvent('user.registered', userId, { email, method: 'password' }, new Date())]);
    await expect(
      f.users.replacePasswordHash({ email, expectedHash: 'not the stored hash', newHash: 'x', reason: 'password-change' }, [createAccountEvent('password.changed', userId, { by: 'owner' }, new Date())]),
    ).rejects.toBeInstanceOf(HashChangedError);
    expect(await f.users.markEmailVerified(uniqueEmail(), new Date(), [createAccountEvent('email.verified', userId, { email }, new Date())])).toBe(false);
    expect(await f.deps.mfa.removeTotp(f.deps.fingerprint(email), 'sealed', true, [createAccountEvent('factor.removed', userId, { factor: 'totp', by: 'owner' }, new Date())])).toBe(false);
    expect(summary(await f.eventsOf(userId)).map((event) => event.type)).toEqual(['user.registered']);
    expect(await f.rawOutbox('other')).toBeUndefined();
    f.dispose();
  });

  it('concurrent changes of one account list their events in the order the changes committed', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId } = await f.account();
    const start = (await f.users.getUserByEmail(email))!.passwordHash;
    const hashes = [start, ...Array.from({ length: 8 }, (_, index) => `chain-${index + 1}`)];
    const changes = hashes.slice(1).map((newHash, index) => ({ expectedHash: hashes[index]!, newHash, event: createAccountEvent('password.changed', userId, { by: 'owner' }, new Date()) }));
    // Every request that appends is held back a random while before it is sent: an append that
    // went apart from its change (the order of the commits, not of the appends) would fall out of order.
    f.client.middlewareStack.add(
      (next) => async (args) => {
        if (JSON.stringify(args.input).includes(OUTBOX_KEY_PREFIX)) await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        return next(args);
      },
      { step: 'initialize', name: 'appendLatency' },
    );
    // All at once, each retrying until its predecessor is stored: the commits are forced into the
    // chain's order while the requests (and their appends) race.
    await Promise.all(
      [...changes].reverse().map(async (change) => {
        for (;;) {
          try {
            return await f.users.replacePasswordHash({ email, expectedHash: change.expectedHash, newHash: change.newHash, reason: 'password-change' }, [change.event]);
          } catch (error) {
            if (!(error instanceof HashChangedError)) throw error;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      }),
    );
    expect((await f.users.getUserByEmail(email))!.passwordHash).toBe('chain-8');
    expect((await f.eventsOf(userId)).slice(1).map((event) => event.id)).toEqual(changes.map((change) => change.event.id));
    f.dispose();
  });

  it('wired from the configuration: PASSLANE_EVENTS=on records and the host hears of the account once its write commits; off records nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-events-'));
    const table = `events-${crypto.randomUUID()}`;
    const client = createDynamoDbClient({ endpoint: server.endpoint });
    await ensureTable(client, table);
    const appended: string[] = [];
    const platform = { ...nodePlatform, afterEventAppend: (accountId: string) => void appended.push(accountId) };
    const env = { DYNAMODB_ENDPOINT: server.endpoint, PASSLANE_TABLE: table, PASSLANE_DATA_DIR: dataDir };
    const on = await buildAuthDependencies(readConfig({ ...env, PASSLANE_EVENTS: 'on' }), platform);
    const off = await buildAuthDependencies(readConfig(env), platform);
    const email = uniqueEmail();
    const made = await register(on, { email, password: PASSWORD });
    const userId = 'userId' in made ? made.userId : '';
    expect(appended).toEqual([userId]);
    expect(summary(await eventsOf(client, table, userId))).toEqual([{ type: 'user.registered', accountId: userId, data: { email, method: 'password' } }]);
    // A lost condition: no event, and the host hears of none.
    await expect(register(on, { email, password: PASSWORD })).rejects.toBeInstanceOf(AccountExistsConflictError);
    const quiet = await register(off, { email: uniqueEmail(), password: PASSWORD });
    expect(appended).toEqual([userId]);
    expect(await rawOutbox(client, table, 'userId' in quiet ? quiet.userId : '')).toBeUndefined();
    client.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('with recording off: no outbox item, no transaction, the writes as they were', async () => {
    const f = await fixture(server.endpoint, { events: false });
    const { email, userId, token } = await f.account();
    expect((await f.call('POST', '/password', { token, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(204);
    const newEmail = uniqueEmail();
    expect((await f.call('POST', '/email/change', { token: await sessionToken(f.deps, { email, userId }), body: { newEmail } })).status).toBe(202);
    expect((await f.call('POST', '/email/change/confirm', { body: { token: f.mailbox.last('email_change')!.token } })).status).toBe(204);
    await disableAccount(f.deps, { userId, actor: OPERATOR });
    await deleteAccount(f.deps, { userId, actor: OPERATOR });
    const outboxes = await f.client.send(new ScanCommand({ TableName: f.tableName, FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': { S: OUTBOX_KEY_PREFIX } } }));
    expect(outboxes.Items).toEqual([]);
    // The address switch is a transaction of its own (email-switch-store.ts); nothing else is one.
    expect(f.commands.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(1);
    expect(f.outbox.usedTransactions).toBeUndefined();
    f.dispose();
  });
});

describe('account events on dynalite (no transactions: the change, then the append)', () => {
  let server: RunningDynamoDb;
  beforeAll(async () => {
    server = await startDynalite();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('appends after each change, in order, asking for a transaction once', async () => {
    const f = await fixture(server.endpoint, { events: true });
    const { email, userId, token } = await f.account();
    expect((await f.call('POST', '/password', { token, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(204);
    const newEmail = uniqueEmail();
    expect((await f.call('POST', '/email/change', { token: await sessionToken(f.deps, { email, userId }), body: { newEmail } })).status).toBe(202);
    expect((await f.call('POST', '/email/change/confirm', { body: { token: f.mailbox.last('email_change')!.token } })).status).toBe(204);
    await expect(
      f.users.replacePasswordHash({ email: newEmail, expectedHash: 'not the stored hash', newHash: 'x', reason: 'password-change' }, [createAccountEvent('password.changed', userId, { by: 'owner' }, new Date())]),
    ).rejects.toBeInstanceOf(HashChangedError);
    expect(summary(await f.eventsOf(userId))).toEqual([
      { type: 'user.registered', accountId: userId, data: { email, method: 'password' } },
      { type: 'password.changed', accountId: userId, data: { by: 'owner' } },
      { type: 'email.changed', accountId: userId, data: { from: email, to: newEmail, by: 'owner' } },
    ]);
    expect(f.outbox.usedTransactions).toBe(false);
    // One ask of the outbox, one of the address switch (each remembers the answer).
    expect(f.commands.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(2);
    f.dispose();
  });
});
