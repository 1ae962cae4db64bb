/**
 * Account lifecycle (issue 35): deletion, disabling, ending every session, an operator's removal
 * of a factor and reset mail, and the operators' reads; through the use cases on both real
 * DynamoDB servers, with real logins, refreshes, the sessions check of passlane's routes and the
 * Lambda authorizer's. Races: many logins while an account is deleted or disabled.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor, AuditEvent } from '../packages/server/src/accounts/audit-events.js';
import { InvalidGrantError, MfaRequiredError, UnauthenticatedError, UserNotFoundError } from '../packages/server/src/accounts/errors.js';
import { deleteAccount } from '../packages/server/src/features/account/delete-account.js';
import type { AccountLifecycleDependencies } from '../packages/server/src/features/account/dependencies.js';
import { disableAccount, enableAccount } from '../packages/server/src/features/account/disable-account.js';
import { endAllSessions } from '../packages/server/src/features/account/end-all-sessions.js';
import { findUserByEmail } from '../packages/server/src/features/account/find-user-by-email.js';
import { listUsers } from '../packages/server/src/features/account/list-users.js';
import { removeFactor } from '../packages/server/src/features/account/remove-factor.js';
import { sendPasswordReset } from '../packages/server/src/features/account/send-password-reset.js';
import { showUser } from '../packages/server/src/features/account/show-user.js';
import { login, type LoginResponse } from '../packages/server/src/features/login/login.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { undoFactor } from '../packages/server/src/features/mfa/undo-factor.js';
import { confirmPasswordReset } from '../packages/server/src/features/recovery/confirm-password-reset.js';
import { register } from '../packages/server/src/features/register/register.js';
import { authenticateSession } from '../packages/server/src/features/sessions/authenticate-session.js';
import { authorizeAccess } from '../packages/server/src/features/sessions/authorize-access.js';
import { refreshSession } from '../packages/server/src/features/sessions/refresh-session.js';
import { SessionVerdictCache } from '../packages/server/src/features/sessions/session-verdict-cache.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { authenticatorApp } from './support/authenticator-app.js';
import { failureOf } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';

const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.7';
const OPERATOR: Actor = { kind: 'operator', id: 'arn:aws:iam::123456789012:user/support' };

describe.each(dynamoDbServers)('account lifecycle on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A registered account signed in once, and the lifecycle's dependencies over the same table. */
  async function signedIn() {
    const fixture = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const registered = await register(fixture.deps, { email, password: PASSWORD });
    if (!('userId' in registered)) throw new Error('registration without verification answers the user id');
    const signIn = () => login(fixture.deps, { email, password: PASSWORD, sourceIp: SOURCE, userAgent: 'vitest' });
    const lifecycle: AccountLifecycleDependencies = { ...fixture.deps, now: () => new Date() };
    const authorizer = { tokens: fixture.deps.tokens, sessions: fixture.deps.sessions, cache: new SessionVerdictCache({ ttlSeconds: 0 }) };
    return { ...fixture, email, userId: registered.userId, signIn, first: await signIn(), lifecycle, authorizer };
  }

  type Account = Awaited<ReturnType<typeof signedIn>>;

  /** Every item of the table, by key. */
  async function tableItems(account: Account) {
    const result = await account.client.send(new ScanCommand({ TableName: account.tableName, ConsistentRead: true }));
    return result.Items ?? [];
  }

  /** What a client holding the login's tokens can still do: use the access token on passlane and behind the authorizer, refresh. */
  async function access(account: Account, session: LoginResponse) {
    return {
      passlane: await failureOf(authenticateSession(account.deps, session.accessToken)),
      authorizer: await authorizeAccess(account.authorizer, session.accessToken),
      refresh: await failureOf(refreshSession(account.deps, { refreshToken: session.refreshToken, sourceIp: SOURCE })),
    };
  }

  it('deletes every item of the account: its tokens stop at once, only fingerprint-keyed counters and the emptied sessions item remain, the address registers again', async () => {
    const account = await signedIn();
    const { first, lifecycle, userId, email, events } = account;
    // A factor and a reset link: items of their own to erase.
    const enrolment = await enrolTotp(account.deps, { accessToken: first.accessToken });
    await confirmTotp(account.deps, { accessToken: first.accessToken, code: authenticatorApp(enrolment.otpauthUri).codeAt(new Date()) });
    await sendPasswordReset(lifecycle, { userId, actor: OPERATOR });
    const second = await failureOf(account.signIn());
    expect(second).toBeInstanceOf(MfaRequiredError);

    await deleteAccount(lifecycle, { userId, actor: OPERATOR });

    const after = await access(account, first);
    expect(after.passlane).toBeInstanceOf(UnauthenticatedError);
    expect(after.authorizer).toMatchObject({ allowed: false, reason: 'session_ended' });
    expect(after.refresh).toBeInstanceOf(InvalidGrantError);
    const accountKey = account.deps.fingerprint(email);
    const left = await tableItems(account);
    for (const item of left) {
      const pk = item.pk!.S!;
      // Counters keyed by fingerprints (and sources), until their TTL (SECURITY.md, "Deletion").
      if (pk.startsWith('ratelimit#') || pk.startsWith('failures#')) {
        expect(item.expiresAt?.N).toBeDefined();
        continue;
      }
      // A factor's "this wasn't me" link, keyed by its secret's hash (not addressable), until it expires (SECURITY.md).
      // And an MFA login's token (a password step passed), keyed by its secret's hash too, for minutes.
      if (pk.startsWith(`token#undo#${accountKey}#`) || (pk.startsWith('mfalogin#') && item.accountKey?.S === accountKey)) {
        expect(Number(item.expiresAt?.N)).toBeGreaterThan(Date.now() / 1000);
        continue;
      }
      // The emptied sessions item: no session, no device, no mark, an epoch and a near TTL.
      expect(pk).toBe(`sessions#${accountKey}`);
      expect(Object.keys(item).sort()).toEqual(['devices', 'epoch', 'expiresAt', 'pk', 'sessions']);
      expect(item.sessions?.M).toEqual({});
      expect(item.devices?.M).toEqual({});
      expect(Number(item.expiresAt!.N)).toBeLessThanOrEqual(Date.now() / 1000 + 24 * 3600 + 5);
    }
    const addressed = left.filter((item) => !item.pk!.S!.startsWith('token#undo#') && !item.pk!.S!.startsWith('mfalogin#'));
    expect(JSON.stringify(addressed)).not.toContain(email);
    expect(JSON.stringify(addressed)).not.toContain(userId);
    expect(events).toContainEqual({ type: 'auth.account_deleted', userId, emailFingerprint: accountKey, actor: OPERATOR });
    expect(account.mailbox.sent.at(-1)).toMatchObject({ kind: 'account_changed', to: email, change: 'deleted' });
    expect(await failureOf(showUser(lifecycle, userId))).toBeInstanceOf(UserNotFoundError);
    expect(await failureOf(deleteAccount(lifecycle, { userId, actor: OPERATOR }))).toBeInstanceOf(UserNotFoundError);

    // The address is free: a new account, no factor inherited, its logins work.
    const again = await register(account.deps, { email, password: PASSWORD });
    expect('userId' in again && again.userId).not.toBe(userId);
    const fresh = await account.signIn();
    expect(await authenticateSession(account.deps, fresh.accessToken)).toMatchObject({ userId: 'userId' in again ? again.userId : '' });
    // The old account's undo link acts on nothing of the new one: its password still signs in, its session goes on.
    await undoFactor(account.deps, { token: account.mailbox.last('factor_added')!.token });
    expect(await account.signIn()).toHaveProperty('accessToken');
    expect(await authenticateSession(account.deps, fresh.accessToken)).toHaveProperty('userId');
    await account.dispose();
  });

  it('a deletion during many logins: no session survives it, no item of the account comes back', async () => {
    const account = await signedIn();
    const { lifecycle, userId, email } = account;
    const logins = Array.from({ length: 12 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 3)).then(() => account.signIn()));
    const deletion = new Promise((resolve) => setTimeout(resolve, 10)).then(() => deleteAccount(lifecycle, { userId, actor: OPERATOR }));
    const outcomes = await Promise.allSettled([...logins, deletion]);
    expect(outcomes.at(-1)!.status).toBe('fulfilled');
    const accountKey = account.deps.fingerprint(email);
    const sessions = await account.deps.sessions.read(accountKey);
    expect(sessions.sessions.size).toBe(0);
    expect(sessions.devices.size).toBe(0);
    expect(sessions.disabled).toBe(false);
    for (const outcome of outcomes.slice(0, -1)) {
      if (outcome.status !== 'fulfilled') continue;
      // A login that answered before the deletion: its tokens are dead now.
      const after = await access(account, outcome.value as LoginResponse);
      expect(after.passlane).toBeInstanceOf(UnauthenticatedError);
      expect(after.refresh).toBeInstanceOf(InvalidGrantError);
    }
    expect(await account.users.getUserByEmail(email)).toBeUndefined();
    const left = (await tableItems(account)).map((item) => item.pk!.S!);
    expect(left.filter((pk) => !pk.startsWith('ratelimit#') && !pk.startsWith('failures#'))).toEqual([`sessions#${accountKey}`]);
    await account.dispose();
  });

  it('disabling ends every session and device at once and refuses refresh; enabling restores logins, not sessions', async () => {
    const account = await signedIn();
    const { first, lifecycle, userId, email, events } = account;
    const other = await account.signIn();

    await disableAccount(lifecycle, { userId, actor: OPERATOR });

    for (const session of [first, other]) {
      const after = await access(account, session);
      expect(after.passlane).toBeInstanceOf(UnauthenticatedError);
      expect(after.authorizer).toMatchObject({ allowed: false });
      expect(after.refresh).toBeInstanceOf(InvalidGrantError);
    }
    const accountKey = account.deps.fingerprint(email);
    const sessions = await account.deps.sessions.read(accountKey);
    expect([sessions.sessions.size, sessions.devices.size, sessions.disabled]).toEqual([0, 0, true]);
    expect((await showUser(lifecycle, userId)).disabledBy).toBe(OPERATOR.kind === 'operator' ? OPERATOR.id : '');
    expect(events).toContainEqual({ type: 'auth.account_disabled', userId, actor: OPERATOR });
    expect(events).toContainEqual({ type: 'auth.sessions_ended', userId, count: 2, reason: 'account_disabled', actor: OPERATOR });
    expect(account.mailbox.sent.at(-1)).toMatchObject({ kind: 'account_changed', to: email, change: 'disabled' });

    await enableAccount(lifecycle, { userId, actor: OPERATOR });
    const view = await showUser(lifecycle, userId);
    expect(view.disabledAt).toBeUndefined();
    expect(view.sessions).toBe(0);
    expect(await failureOf(refreshSession(account.deps, { refreshToken: other.refreshToken, sourceIp: SOURCE }))).toBeInstanceOf(InvalidGrantError);
    const again = await account.signIn();
    expect(await authenticateSession(account.deps, again.accessToken)).toMatchObject({ userId });
    expect(account.mailbox.sent.at(-1)).toMatchObject({ kind: 'account_changed', to: email, change: 'enabled' });
    await account.dispose();
  });

  it('a disable during many logins: none of them leaves a session behind', async () => {
    const account = await signedIn();
    const { lifecycle, userId, email } = account;
    const logins = Array.from({ length: 12 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 3)).then(() => account.signIn()));
    const disable = new Promise((resolve) => setTimeout(resolve, 10)).then(() => disableAccount(lifecycle, { userId, actor: OPERATOR }));
    const outcomes = await Promise.allSettled([...logins, disable]);
    expect(outcomes.at(-1)!.status).toBe('fulfilled');
    const sessions = await account.deps.sessions.read(account.deps.fingerprint(email));
    expect(sessions.sessions.size).toBe(0);
    for (const outcome of outcomes.slice(0, -1)) {
      if (outcome.status === 'fulfilled') expect(await failureOf(authenticateSession(account.deps, (outcome.value as LoginResponse).accessToken))).toBeInstanceOf(UnauthenticatedError);
    }
    await account.dispose();
  });

  // The login's disabled gate (403 account_disabled for a right password, a wrong one as any
  // wrong password) lands from the `pipeline` branch: features/login is not this branch's.
  it.todo('a disabled account: the right password answers account_disabled, a wrong one invalid_credentials (pipeline branch)');

  it('ends every session of the account at an operator\'s request, audited with the operator and mailed', async () => {
    const account = await signedIn();
    const { first, lifecycle, userId, email, events } = account;
    expect(await endAllSessions(lifecycle, { userId, actor: OPERATOR })).toEqual({ sessions: 1, devices: 1 });
    expect((await access(account, first)).passlane).toBeInstanceOf(UnauthenticatedError);
    expect(events).toContainEqual({ type: 'auth.devices_forgotten', userId, count: 1, reason: 'all_ended', actor: OPERATOR });
    expect(account.mailbox.sent.at(-1)).toMatchObject({ kind: 'account_changed', to: email, change: 'sessions_ended' });
    // The password still signs in.
    expect(await account.signIn()).toHaveProperty('accessToken');
    await account.dispose();
  });

  it('removing a lost factor lets its owner in with the password alone', async () => {
    const account = await signedIn();
    const { first, lifecycle, userId, email, events } = account;
    const enrolment = await enrolTotp(account.deps, { accessToken: first.accessToken });
    await confirmTotp(account.deps, { accessToken: first.accessToken, code: authenticatorApp(enrolment.otpauthUri).codeAt(new Date()) });
    expect(await failureOf(account.signIn())).toBeInstanceOf(MfaRequiredError);
    expect((await showUser(lifecycle, userId)).factors).toMatchObject({ totp: true, recoveryCodes: 10 });

    expect(await removeFactor(lifecycle, { userId, actor: OPERATOR, factor: 'totp' })).toEqual({ removed: true });

    expect((await showUser(lifecycle, userId)).factors).toEqual({ totp: false, recoveryCodes: 0, passkeys: [] });
    expect(await account.signIn()).toHaveProperty('accessToken');
    expect(events).toContainEqual({ type: 'auth.factor_removed_by_operator', userId, factor: 'totp', removed: true, actor: OPERATOR });
    expect(account.mailbox.sent.at(-1)).toMatchObject({ kind: 'mfa_changed', to: email, change: 'totp_removed' });
    expect(await removeFactor(lifecycle, { userId, actor: OPERATOR, factor: 'all' })).toEqual({ removed: false });
    await account.dispose();
  });

  it('removes every factor at once, and only the recovery codes when asked', async () => {
    const account = await signedIn();
    const { first, lifecycle, userId } = account;
    const enrolment = await enrolTotp(account.deps, { accessToken: first.accessToken });
    await confirmTotp(account.deps, { accessToken: first.accessToken, code: authenticatorApp(enrolment.otpauthUri).codeAt(new Date()) });
    expect(await removeFactor(lifecycle, { userId, actor: OPERATOR, factor: 'recovery_codes' })).toEqual({ removed: true });
    expect((await showUser(lifecycle, userId)).factors).toMatchObject({ totp: true, recoveryCodes: 0 });
    expect(await removeFactor(lifecycle, { userId, actor: OPERATOR, factor: { passkey: 'no-such-credential' } })).toEqual({ removed: false });
    expect(await removeFactor(lifecycle, { userId, actor: OPERATOR, factor: 'all' })).toEqual({ removed: true });
    expect(await account.signIn()).toHaveProperty('accessToken');
    await account.dispose();
  });

  it('mails a reset link at an operator\'s request: the owner sets a new password with it', async () => {
    const account = await signedIn();
    const { lifecycle, userId, email, events } = account;
    expect(await sendPasswordReset(lifecycle, { userId, actor: OPERATOR })).toEqual({ outcome: 'sent' });
    const mail = account.mailbox.last('password_reset')!;
    expect(mail.to).toBe(email);
    await confirmPasswordReset(account.deps, { token: mail.token, newPassword: 'a whole new password here' });
    expect(await login(account.deps, { email, password: 'a whole new password here', sourceIp: SOURCE })).toHaveProperty('accessToken');
    expect(events).toContainEqual({ type: 'auth.password_reset_sent_by_operator', userId, outcome: 'sent', actor: OPERATOR });
    await account.dispose();
  });

  it('shows an account to an operator by address or id, never a hash or secret, and lists accounts page by page', async () => {
    const account = await signedIn();
    const { lifecycle, userId, email, events } = account;
    const view = await findUserByEmail(lifecycle, email.toUpperCase(), OPERATOR);
    expect(view).toMatchObject({ userId, email, passwordResetRequired: false, sessions: 1, devices: 1, factors: { totp: false, recoveryCodes: 0, passkeys: [] } });
    expect(JSON.stringify(view)).not.toMatch(/argon2|\$2[aby]\$|passwordHash|tokenHash/);
    expect(await showUser(lifecycle, userId, OPERATOR)).toEqual(view);
    expect(await failureOf(findUserByEmail(lifecycle, uniqueEmail(), OPERATOR))).toBeInstanceOf(UserNotFoundError);
    const finds = events.filter((event): event is Extract<AuditEvent, { type: 'auth.account_viewed' }> => event.type === 'auth.account_viewed');
    expect(finds.map((event) => [event.action, event.actor])).toEqual([
      ['find', OPERATOR],
      ['show', OPERATOR],
      ['find', OPERATOR],
    ]);
    expect(JSON.stringify(events)).not.toContain(email);

    const more = await Promise.all(Array.from({ length: 4 }, async () => {
      const other = uniqueEmail();
      await register(account.deps, { email: other, password: PASSWORD });
      return other;
    }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listUsers(lifecycle, { limit: 2, actor: OPERATOR, ...(cursor !== undefined && { cursor }) });
      expect(page.users.length).toBeLessThanOrEqual(2);
      seen.push(...page.users.map((user) => user.email));
      cursor = page.cursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(seen.sort()).toEqual([email, ...more].sort());
    expect(await failureOf(listUsers(lifecycle, { limit: 2, cursor: 'bm90LWEta2V5' }))).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    expect(await failureOf(listUsers(lifecycle, { limit: 0 }))).toMatchObject({ code: 'invalid_request', field: 'limit' });
    await account.dispose();
  });
});
