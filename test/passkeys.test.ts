/**
 * Passkeys (issue 28): registration behind a recent login, the list, renaming, removal behind a
 * login with a second factor, passwordless login, a passkey as the second factor of POST
 * /login/mfa, and the refusals (replayed assertion, used or expired challenge, another origin or
 * RP ID, a counter gone back, a changed backup eligibility, a credential of another account, the
 * 11th passkey); recovery codes with the account's factors as a whole; the rate limit at DELETE
 * /mfa/totp. Through the API (hono, in process) and the use cases, on both real DynamoDB
 * servers, with a clock the test moves and a software authenticator answering as a browser.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { inProcessApi, type ApiAnswerWithHeaders } from './support/in-process-api.js';
import { createApi } from '../packages/server/src/api/create-api.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { MfaStore } from '../packages/server/src/storage/mfa-store.js';
import { register } from '../packages/server/src/features/register/register.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { sourceKeyOf } from '../packages/server/src/accounts/source-key.js';
import { canonicalEmail } from '../packages/server/src/accounts/canonical-email.js';
import { userKey } from '../packages/server/src/storage/account-store.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import { servicesOf, type ApiServices } from '../packages/server/src/wiring/api-services.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createAuthFixture, uniqueEmail, asCaller } from './support/auth-fixture.js';
import { movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';
import { mfaStoreChangedAfterRead } from './support/store-race.js';

const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.7';
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };

type Answer = ApiAnswerWithHeaders;

describe.each(dynamoDbServers)('passkeys on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A fixture with passkeys on, its API in process, and a registered account signed in with its password (a recent login). */
  async function signedIn(overrides: Partial<AppDependencies> = {}) {
    // 10 s into a TOTP step, 10 minutes back: tests move it forward past a recent login's 5 minutes,
    // and tokens verified at the real time must not have been issued in the future.
    const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 590_000);
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, webauthn: WEBAUTHN, ...overrides });
    const call = inProcessApi(fixture.deps, SOURCE, { withHeaders: true });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const passwordLogin = () => call('POST', '/login', { body: { email, password: PASSWORD } });
    const first = await passwordLogin();
    expect(first.status).toBe(200);
    return { ...fixture, clock, call, email, passwordLogin, token: first.body.accessToken as string };
  }

  /**
   * A passkey registered through the API, as a browser would, by the password login (the
   * account's first factor); `token` is then a session that used it (a passwordless login), as
   * changing factors needs, and `passwordToken` the password login's, still live.
   */
  async function withPasskey(options: { synced?: boolean } = {}, overrides: Partial<AppDependencies> = {}) {
    const account = await signedIn(overrides);
    const authenticator = softwareAuthenticator({ origin: ORIGIN, ...options });
    const registered = await registerWith(account, authenticator);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const withRegistered = { ...account, authenticator, registered: registered.body as { passkey: { id: string }; recoveryCodes?: string[]; sessionsEnded: number } };
    return { ...withRegistered, token: await mfaSession(withRegistered), passwordToken: account.token };
  }

  async function registerWith(
    account: { call: (method: string, path: string, options?: { body?: unknown; token?: string }) => Promise<Answer>; token: string },
    authenticator: ReturnType<typeof softwareAuthenticator>,
    overrides: Parameters<ReturnType<typeof softwareAuthenticator>['register']>[1] = {},
    name?: string,
  ) {
    const options = await account.call('POST', '/passkeys/registration/options', { token: account.token });
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    const response = await authenticator.register(options.body as unknown as PublicKeyCredentialCreationOptionsJSON, overrides);
    return account.call('POST', '/passkeys/registration', { token: account.token, body: { response, ...(name !== undefined && { name }) } });
  }

  /** POST /passkey/login/options, answered by the authenticator. */
  async function passwordlessAssertion(
    account: { call: (method: string, path: string, options?: { body?: unknown }) => Promise<Answer> },
    authenticator: ReturnType<typeof softwareAuthenticator>,
    overrides: Parameters<ReturnType<typeof softwareAuthenticator>['authenticate']>[1] = {},
  ): Promise<AuthenticationResponseJSON> {
    const options = await account.call('POST', '/passkey/login/options');
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    return authenticator.authenticate(options.body as unknown as PublicKeyCredentialRequestOptionsJSON, overrides);
  }

  it('registers a passkey after a recent login, lists it, logs in with it without a password, and uses it as the second factor', async () => {
    const account = await withPasskey();
    const { call, token, authenticator, registered, passwordLogin, events, mailbox, dispose } = account;
    expect(registered.passkey).toMatchObject({ name: 'Passkey', deviceType: 'singleDevice', backedUp: false, lastUsedAt: null });
    expect(registered.recoveryCodes).toHaveLength(10);
    expect(registered.sessionsEnded).toBe(0);
    expect(mailbox.sent.filter((mail) => mail.kind === 'factor_added').map((mail) => mail.change)).toEqual(['passkey_added']);

    const listed = await call('GET', '/passkeys', { token });
    expect(listed).toMatchObject({ status: 200, body: { passkeys: [{ id: registered.passkey.id, name: 'Passkey' }] } });

    // Passwordless: the session's amr says a hardware-bound key, user verification, mfa.
    const assertion = await passwordlessAssertion(account, authenticator);
    const loggedIn = await call('POST', '/passkey/login', { body: { response: assertion } });
    expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
    expect(Object.keys(loggedIn.body).sort()).toEqual(['accessToken', 'deviceExpiresIn', 'deviceToken', 'expiresIn', 'refreshExpiresIn', 'refreshToken', 'tokenType']);
    expect(loggedIn.headers.get('set-cookie')).toMatch(/^__Host-passlane-device-/);
    expect(decodeJwt(loggedIn.body.accessToken as string).amr).toEqual(['hwk', 'user', 'mfa']);

    // Second factor: a right password answers mfa_required with webauthn options for this passkey.
    const challenge = await passwordLogin();
    expect(challenge.status).toBe(401);
    expect(challenge.body).toMatchObject({ error: { code: 'mfa_required' }, methods: ['webauthn', 'recovery_code'] });
    const webauthn = challenge.body.webauthn as PublicKeyCredentialRequestOptionsJSON;
    expect(webauthn.allowCredentials?.map((credential) => credential.id)).toEqual([registered.passkey.id]);
    expect(webauthn.userVerification).toBe('preferred');
    const second = await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'webauthn', response: await authenticator.authenticate(webauthn) } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(decodeJwt(second.body.accessToken as string).amr).toEqual(['pwd', 'hwk', 'mfa']);

    const used = await call('GET', '/passkeys', { token });
    expect((used.body.passkeys as { lastUsedAt: string | null }[])[0]!.lastUsedAt).toEqual(expect.any(String));
    // Never a challenge, a public key, a token or an email in the audit trail.
    const trail = JSON.stringify(events);
    for (const secret of [assertion.response.signature, webauthn.challenge, account.email, loggedIn.body.accessToken as string]) expect(trail).not.toContain(secret);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['auth.passkey_registered', 'auth.passkey_login_succeeded', 'auth.mfa_succeeded']));
    dispose();
  });

  it('a disabled account: a right passkey, second factor or password answers account_disabled, a wrong one fails as on any account', async () => {
    const account = await withPasskey();
    const { call, authenticator, passwordLogin, client, tableName, email, events, dispose } = account;
    // The password step before the account is disabled: its MFA token and webauthn options.
    const challenge = await passwordLogin();
    expect(challenge.status).toBe(401);
    const webauthn = challenge.body.webauthn as PublicKeyCredentialRequestOptionsJSON;
    // As an operator's route will: the account item's disabledAt (the routes are another change's).
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: userKey(canonicalEmail(email)) } },
        UpdateExpression: 'SET disabledAt = :at',
        ExpressionAttributeValues: { ':at': { S: account.clock.now().toISOString() } },
      }),
    );
    const disabled = { status: 403, body: { error: { code: 'account_disabled' } } };

    // Wrong ones answer as on any account: an assertion of another challenge, a used one.
    const otherChallenge = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
    const wrongFactor = await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'webauthn', response: await authenticator.authenticate({ ...webauthn, challenge: otherChallenge }) } });
    expect(wrongFactor).toMatchObject({ status: 401, body: { error: { code: 'invalid_mfa_code' } } });
    const assertion = await passwordlessAssertion(account, authenticator);
    expect(await call('POST', '/passkey/login', { body: { response: assertion } })).toMatchObject(disabled);
    expect(await call('POST', '/passkey/login', { body: { response: assertion } })).toMatchObject({ status: 401, body: { error: { code: 'invalid_passkey' } } });

    // Right ones: the second factor, and the password (refused before any MFA token is made).
    expect(await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'webauthn', response: await authenticator.authenticate(webauthn) } })).toMatchObject(disabled);
    expect(await passwordLogin()).toMatchObject(disabled);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'auth.login_disabled')).toHaveLength(3);
    expect(types.filter((type) => type === 'auth.mfa_challenged')).toHaveLength(1);
    expect(types.slice(types.indexOf('auth.login_disabled'))).not.toContain('auth.login_succeeded');
    dispose();
  });

  /** A session whose login used TOTP (the password, then a code of the next step). */
  async function totpSession(account: Awaited<ReturnType<typeof signedIn>>, codeAt: (now: Date) => string) {
    account.clock.advance(30);
    const challenge = await account.passwordLogin();
    const loggedIn = await account.call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'totp', code: codeAt(account.clock.now()) } });
    expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
    return loggedIn.body.accessToken as string;
  }

  /** TOTP enrolled from the URI on the account (use-case level), and a code at a time. */
  async function withTotp(account: Awaited<ReturnType<typeof signedIn>>) {
    const enrolment = await asCaller(account.deps, account.token, 'recent', (caller) => enrolTotp(account.deps, { caller }));
    const secret = base32Bytes(new URL(enrolment.otpauthUri).searchParams.get('secret')!);
    const codeAt = (now: Date) => totpCode(secret, now.getTime());
    const confirmed = await asCaller(account.deps, account.token, 'recent', (caller) => confirmTotp(account.deps, { caller, code: codeAt(account.clock.now()) }));
    return { codeAt, confirmed };
  }

  /** A session whose login used a second factor (a passwordless passkey login): what changing factors needs. */
  async function mfaSession(account: Pick<Awaited<ReturnType<typeof signedIn>>, 'call'> & { authenticator: ReturnType<typeof softwareAuthenticator> }) {
    const loggedIn = await account.call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, account.authenticator) } });
    expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
    return loggedIn.body.accessToken as string;
  }

  it('registration needs a login within 5 minutes; a synced passkey says so and logs in as swk', async () => {
    const account = await signedIn();
    const { call, token, clock, dispose } = account;
    clock.advance(301);
    expect(await call('POST', '/passkeys/registration/options', { token })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    const fresh = (await account.passwordLogin()).body.accessToken as string;
    const authenticator = softwareAuthenticator({ origin: ORIGIN, synced: true });
    const registered = await registerWith({ call, token: fresh }, authenticator, {}, 'Phone');
    expect(registered).toMatchObject({ status: 201, body: { passkey: { name: 'Phone', deviceType: 'multiDevice', backedUp: true } } });
    const loggedIn = await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, authenticator) } });
    expect(decodeJwt(loggedIn.body.accessToken as string).amr).toEqual(['swk', 'user', 'mfa']);
    dispose();
  });

  it('renames; removal needs a login with a second factor, then the passkey logs in no more', async () => {
    const account = await withPasskey();
    const { call, token, passwordToken, registered, authenticator, mailbox, dispose } = account;
    const id = registered.passkey.id;
    // A session of the password alone, however recent, cannot rename a factor either.
    expect(await call('PATCH', `/passkeys/${id}`, { token: passwordToken, body: { name: 'Mine' } })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    expect(await call('PATCH', `/passkeys/${id}`, { token, body: { name: 'Laptop' } })).toMatchObject({ status: 200, body: { passkey: { id, name: 'Laptop' } } });
    expect(await call('PATCH', `/passkeys/${id}`, { token, body: { name: 'a\nb' } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await call('PATCH', '/passkeys/unknown', { token, body: { name: 'Laptop' } })).toMatchObject({ status: 404, body: { error: { code: 'passkey_not_found' } } });
    // A session of the password alone, however recent, cannot take a factor away.
    expect(await call('DELETE', `/passkeys/${id}`, { token: passwordToken })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    const withMfa = await mfaSession(account);
    expect((await call('DELETE', `/passkeys/${id}`, { token: withMfa })).status).toBe(204);
    expect(mailbox.sent.at(-1)).toMatchObject({ kind: 'mfa_changed', change: 'passkey_removed' });
    expect(await call('GET', '/passkeys', { token: withMfa })).toMatchObject({ status: 200, body: { passkeys: [] } });
    const stale = await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, authenticator) } });
    expect(stale).toMatchObject({ status: 401, body: { error: { code: 'invalid_passkey' } } });
    // The last factor took the recovery codes with it: the password alone logs in again.
    expect((await account.passwordLogin()).status).toBe(200);
    dispose();
  });

  it('refuses a replayed assertion, an answer to a used challenge and to an expired one', async () => {
    const account = await withPasskey();
    const { call, clock, authenticator, dispose } = account;
    const options = (await call('POST', '/passkey/login/options')).body as unknown as PublicKeyCredentialRequestOptionsJSON;
    const assertion = await authenticator.authenticate(options);
    expect((await call('POST', '/passkey/login', { body: { response: assertion } })).status).toBe(200);
    expect(await call('POST', '/passkey/login', { body: { response: assertion } })).toMatchObject({ status: 401, body: { error: { code: 'invalid_passkey' } } });
    // A new signature (counter moved on) over the challenge already spent.
    expect((await call('POST', '/passkey/login', { body: { response: await authenticator.authenticate(options) } })).status).toBe(401);
    const later = await passwordlessAssertion(account, authenticator);
    clock.advance(301);
    expect((await call('POST', '/passkey/login', { body: { response: later } })).status).toBe(401);
    expect(account.events.filter((event) => event.type === 'auth.passkey_login_failed').map((event) => (event as { reason: string }).reason)).toEqual([
      'unknown_challenge',
      'unknown_challenge',
      'expired_challenge',
    ]);
    dispose();
  });

  it('refuses another origin or RP ID, a counter gone back, a changed backup eligibility, and counts each as a failed login', async () => {
    const account = await withPasskey();
    const { call, deps, clock, email, authenticator, dispose } = account;
    const refused = async (overrides: Parameters<typeof authenticator.authenticate>[1]) =>
      (await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, authenticator, overrides) } })).status;
    expect(await refused({ origin: 'https://evil.example.net' })).toBe(401);
    expect(await refused({ rpId: 'evil.example.net' })).toBe(401);
    expect(await refused({ counter: 1 })).toBe(401);
    expect(await refused({ backupEligible: true })).toBe(401);
    expect(await refused({ userVerification: false })).toBe(401);
    expect(await refused({})).toBe(200);
    const reasons = account.events.filter((event) => event.type === 'auth.passkey_login_failed').map((event) => (event as { reason: string }).reason);
    expect(reasons).toEqual(['not_verified', 'not_verified', 'counter_regression', 'backup_eligibility_changed', 'not_verified']);
    const state = await deps.loginGuard.read({ email, accountKey: deps.fingerprint(email), sourceKey: sourceKeyOf(SOURCE), now: clock.now() });
    // The good login cleared the account's run; the source keeps its count.
    expect(state.account.failures).toBe(0);
    expect(state.source.failures).toBe(5);
    // Registration is checked alike: another origin or RP ID is refused.
    const other = softwareAuthenticator({ origin: ORIGIN });
    expect((await registerWith(account, other, { origin: 'https://evil.example.net' })).status).toBe(401);
    expect((await registerWith(account, other, { rpId: 'evil.example.net' })).status).toBe(401);
    dispose();
  });

  it('a wrong assertion at POST /login/mfa counts as a wrong code; an unknown credential counts against the source', async () => {
    const account = await withPasskey();
    const { call, deps, clock, email, authenticator, passwordLogin, dispose } = account;
    const challenge = await passwordLogin();
    const webauthn = challenge.body.webauthn as PublicKeyCredentialRequestOptionsJSON;
    const wrong = await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'webauthn', response: await authenticator.authenticate(webauthn, { origin: 'https://evil.example.net' }) } });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_mfa_code' } } });
    expect(await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'webauthn' } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    const state = await deps.loginGuard.read({ email, accountKey: deps.fingerprint(email), sourceKey: sourceKeyOf(SOURCE), now: clock.now() });
    // The email's run keeps the password step's attempt until a second factor is right, and the wrong assertion adds one.
    expect(state.account.failures).toBe(2);
    const stranger = softwareAuthenticator({ origin: ORIGIN });
    await stranger.register({ ...((await call('POST', '/passkeys/registration/options', { token: account.token })).body as unknown as PublicKeyCredentialCreationOptionsJSON) });
    expect((await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, stranger) } })).status).toBe(401);
    const after = await deps.loginGuard.read({ email, accountKey: deps.fingerprint(email), sourceKey: sourceKeyOf(SOURCE), now: clock.now() });
    expect(after.source.failures).toBe(2);
    expect(after.account.failures).toBe(2);
    dispose();
  });

  it('refuses a credential registered already, on another account or the same', async () => {
    const account = await withPasskey();
    const { deps, call, authenticator, registered, dispose } = account;
    const otherEmail = uniqueEmail();
    await register(deps, { email: otherEmail, password: PASSWORD });
    const other = await call('POST', '/login', { body: { email: otherEmail, password: PASSWORD } });
    const taken = await registerWith({ call, token: other.body.accessToken as string }, authenticator, { credentialId: registered.passkey.id });
    expect(taken).toMatchObject({ status: 401, body: { error: { code: 'invalid_passkey' } } });
    expect((await registerWith(account, authenticator, { credentialId: registered.passkey.id })).status).toBe(401);
    // It still logs in to its own account.
    // (The software authenticator restarted its counter with the re-registrations; the stored one moved on at a login.)
    const loggedIn = await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, authenticator, { counter: 10 }) } });
    expect(decodeJwt(loggedIn.body.accessToken as string).sub).toBe((await deps.users.getUserById(decodeJwt(account.token).sub!))?.userId);
    dispose();
  });

  it('an account has at most 10 passkeys', async () => {
    const account = await withPasskey();
    for (let i = 2; i <= 10; i++) expect((await registerWith(account, account.authenticator)).status).toBe(201);
    expect(await account.call('POST', '/passkeys/registration/options', { token: account.token })).toMatchObject({ status: 409, body: { error: { code: 'passkey_limit_reached' } } });
    expect((await account.call('GET', '/passkeys', { token: account.token })).body.passkeys).toHaveLength(10);
    account.dispose();
  });

  it('recovery codes come with the first factor and stay while another factor remains', async () => {
    // Passkey first: its codes; TOTP after brings none and its removal keeps them.
    const account = await withPasskey();
    const { call, clock, registered, passwordLogin, dispose } = account;
    const { codeAt, confirmed } = await withTotp(account);
    expect(confirmed.recoveryCodes).toBeUndefined();
    clock.advance(30);
    const removed = await call('DELETE', '/mfa/totp', { token: account.token, body: { method: 'totp', code: codeAt(clock.now()) } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    const challenge = await passwordLogin();
    expect(challenge.body.methods).toEqual(['webauthn', 'recovery_code']);
    const withCode = await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'recovery_code', code: registered.recoveryCodes![0] } });
    expect(withCode.status).toBe(200);
    expect((await call('POST', '/mfa/recovery-codes', { token: account.token })).status).toBe(200);
    // Removing the last factor takes the codes: the password alone logs in.
    expect((await call('DELETE', `/passkeys/${registered.passkey.id}`, { token: withCode.body.accessToken as string })).status).toBe(204);
    expect((await passwordLogin()).status).toBe(200);
    expect(await call('POST', '/mfa/recovery-codes', { token: account.token })).toMatchObject({ status: 409, body: { error: { code: 'mfa_not_enabled' } } });
    dispose();
  });

  it('TOTP first: its codes stay when a passkey is added and removed, and go with TOTP last', async () => {
    const account = await signedIn();
    const { call, clock, passwordLogin, dispose } = account;
    const { codeAt, confirmed } = await withTotp(account);
    expect(confirmed.recoveryCodes).toHaveLength(10);
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const registered = await registerWith({ call, token: await totpSession(account, codeAt) }, authenticator);
    expect(registered.status).toBe(201);
    expect(registered.body.recoveryCodes).toBeUndefined();
    const challenge = await passwordLogin();
    expect(challenge.body.methods).toEqual(['totp', 'webauthn', 'recovery_code']);
    clock.advance(30);
    const second = await call('POST', '/login/mfa', { body: { mfaToken: challenge.body.mfaToken, method: 'totp', code: codeAt(clock.now()) } });
    const id = (registered.body.passkey as { id: string }).id;
    expect((await call('DELETE', `/passkeys/${id}`, { token: second.body.accessToken as string })).status).toBe(204);
    const totpOnly = await passwordLogin();
    expect(totpOnly.body.methods).toEqual(['totp', 'recovery_code']);
    const withCode = await call('POST', '/login/mfa', { body: { mfaToken: totpOnly.body.mfaToken, method: 'recovery_code', code: confirmed.recoveryCodes![0] } });
    expect(withCode.status).toBe(200);
    clock.advance(30);
    expect((await call('DELETE', '/mfa/totp', { token: withCode.body.accessToken as string, body: { method: 'totp', code: codeAt(clock.now()) } })).status).toBe(204);
    expect((await passwordLogin()).status).toBe(200);
    dispose();
  });

  it('counts attempts at DELETE /mfa/totp per account: the 6th in 15 minutes is rate_limited', async () => {
    const account = await signedIn();
    const { call, dispose } = account;
    const { codeAt, confirmed } = await withTotp(account);
    const token = await totpSession(account, codeAt);
    for (let i = 0; i < 5; i++) {
      expect(await call('DELETE', '/mfa/totp', { token, body: { method: 'totp', code: '000000' } })).toMatchObject({ status: 401, body: { error: { code: 'invalid_mfa_code' } } });
    }
    // A right, unused code, with the clock where it was: the count's fixed window cannot have
    // turned over between the attempts (a moved clock could cross its edge and start afresh).
    const limited = await call('DELETE', '/mfa/totp', { token, body: { method: 'recovery_code', code: confirmed.recoveryCodes![0] } });
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    dispose();
  });

  it("a password-only session's first passkey loses to TOTP turned on meanwhile (the write decides, not the read)", async () => {
    const account = await signedIn();
    const { call, client, tableName, deps, email, clock, dispose } = account;
    const accountKey = deps.fingerprint(email);
    const store = new MfaStore(client, tableName);
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const options = await call('POST', '/passkeys/registration/options', { token: account.token });
    const response = await authenticator.register(options.body as unknown as PublicKeyCredentialCreationOptionsJSON);
    // Right after the registration's read of the factors ("none yet"), TOTP is turned on elsewhere.
    const secret = crypto.getRandomValues(new Uint8Array(20));
    const turnOnTotp = async () => {
      const sealed = await deps.secretBox.seal(accountKey, secret);
      await store.putPending(accountKey, decodeJwt(account.token).sub!, sealed, Math.floor(clock.now().getTime() / 1000) + 600);
      await store.activate(accountKey, sealed, Math.floor(clock.now().getTime() / 30_000), Math.floor(clock.now().getTime() / 1000), ['hash']);
    };
    const real = deps.mfa;
    deps.mfa = mfaStoreChangedAfterRead(store, turnOnTotp);
    const late = await call('POST', '/passkeys/registration', { token: account.token, body: { response } });
    deps.mfa = real;
    expect(late).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    expect((await store.read(accountKey))?.passkeys.size).toBe(0);
    // Its claim of the credential was given back: a session that used TOTP registers that very one.
    const withTotpLogin = await totpSession(account, (now) => totpCode(secret, now.getTime()));
    const again = await registerWith({ call, token: withTotpLogin }, authenticator, { credentialId: response.id });
    // And the password-only session that raced it ends with that registration.
    expect(again).toMatchObject({ status: 201, body: { passkey: { id: response.id }, sessionsEnded: 1 } });
    dispose();
  });

  it("a passkey's undo link removes that passkey only; another factor's link is its own", async () => {
    const account = await withPasskey();
    const { call, deps, email, mailbox, authenticator, registered, dispose } = account;
    const ownersLink = mailbox.last('factor_added')!;
    // A second passkey, added by a session that used the first: its own mail, its own link.
    const other = softwareAuthenticator({ origin: ORIGIN });
    const added = await registerWith(account, other);
    expect(added.status).toBe(201);
    const addedLink = mailbox.last('factor_added')!;
    expect(addedLink.token).not.toBe(ownersLink.token);
    const { undoFactor } = await import('../packages/server/src/features/mfa/undo-factor.js');
    expect(await undoFactor(deps, { token: addedLink.token })).toEqual({ factorRemoved: true });
    const factors = await deps.mfa.read(deps.fingerprint(email));
    expect([...factors!.passkeys.keys()]).toEqual([registered.passkey.id]);
    expect(factors!.recoveryCodes).toHaveLength(10);
    expect((await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, other) } })).status).toBe(401);
    const owners = await call('POST', '/passkey/login', { body: { response: await passwordlessAssertion(account, authenticator) } });
    expect(owners.status).toBe(200);
    // The owner's passkey signs in, but the password stays locked until the mailed reset, even for a password change.
    const change = { currentPassword: PASSWORD, newPassword: 'a passphrase chosen without the reset' };
    expect(await call('POST', '/password', { token: owners.body.accessToken as string, body: change })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    // The first link still works on its own: the last factor goes, with the codes.
    expect(await undoFactor(deps, { token: ownersLink.token })).toEqual({ factorRemoved: true });
    expect((await deps.mfa.read(deps.fingerprint(email)))?.passkeys.size).toBe(0);
    expect((await deps.mfa.read(deps.fingerprint(email)))?.recoveryCodes).toEqual([]);
    dispose();
  });

  it('a wrong password on a passkey account answers as on any account', async () => {
    const account = await withPasskey();
    const { call, deps, email, dispose } = account;
    const plain = uniqueEmail();
    await register(deps, { email: plain, password: PASSWORD });
    const strip = (answer: Answer) => ({ status: answer.status, body: answer.body, cookie: answer.headers.get('set-cookie'), auth: answer.headers.get('www-authenticate') });
    const onPasskey = strip(await call('POST', '/login', { body: { email, password: 'a wrong password here' } }));
    expect(onPasskey).toEqual(strip(await call('POST', '/login', { body: { email: plain, password: 'a wrong password here' } })));
    expect(onPasskey.status).toBe(401);
    dispose();
  });

  it('without a relying party every passkey route answers passkeys_not_configured, and mfa_required offers no webauthn', async () => {
    const account = await withPasskey();
    const off = await signedIn({ webauthn: undefined });
    const { call, token } = off;
    for (const [method, path] of [['POST', '/passkeys/registration/options'], ['GET', '/passkeys'], ['DELETE', '/passkeys/x'], ['POST', '/passkey/login/options']] as const) {
      expect(await call(method, path, { token })).toMatchObject({ status: 501, body: { error: { code: 'passkeys_not_configured' } } });
    }
    // The same table seen by a deployment without passkeys: the account's passkey is still a factor.
    const { deps } = account;
    const { webauthn: _dropped, ...withoutPasskeys } = deps;
    const blind = createApi(API_ROUTES as AnyRoute<ApiServices>[], {
      services: () => servicesOf(withoutPasskeys as AppDependencies),
      origin: () => ({ sourceIp: SOURCE, requestId: 'req' }),
      log: { info: () => {}, warn: () => {}, error: () => {}, safeError: () => 'error' },
    });
    const answer = await blind.fetch(new Request('http://api.test/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: account.email, password: PASSWORD }) }));
    const body = (await answer.json()) as Record<string, unknown>;
    expect(answer.status).toBe(401);
    expect(body).toMatchObject({ error: { code: 'mfa_required' }, methods: ['recovery_code'] });
    expect(body.webauthn).toBeUndefined();
    account.dispose();
    off.dispose();
  });
});

describe('the passkey settings', () => {
  it('are off unless PASSLANE_WEBAUTHN_RP_ID is set, and default the origin and the name', () => {
    expect(readConfig({}).webauthn).toBeUndefined();
    expect(readConfig({ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_SERVICE_NAME: 'Example' }).webauthn).toEqual({ rpId: 'example.com', origins: ['https://example.com'], rpName: 'Example' });
    expect(
      readConfig({ PASSLANE_WEBAUTHN_RP_ID: 'localhost', PASSLANE_WEBAUTHN_ORIGINS: 'http://localhost:3000, https://app.localhost', PASSLANE_WEBAUTHN_RP_NAME: 'Dev' }).webauthn,
    ).toEqual({ rpId: 'localhost', origins: ['http://localhost:3000', 'https://app.localhost'], rpName: 'Dev' });
  });

  it.each([
    [{ PASSLANE_WEBAUTHN_ORIGINS: 'https://example.com' }, /PASSLANE_WEBAUTHN_ORIGINS.*without PASSLANE_WEBAUTHN_RP_ID/],
    [{ PASSLANE_WEBAUTHN_RP_ID: '127.0.0.1' }, /PASSLANE_WEBAUTHN_RP_ID.*never an IP/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'https://example.com' }, /PASSLANE_WEBAUTHN_RP_ID/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'Example.com' }, /PASSLANE_WEBAUTHN_RP_ID.*lower case/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_WEBAUTHN_ORIGINS: 'http://example.com' }, /PASSLANE_WEBAUTHN_ORIGINS.*https/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_WEBAUTHN_ORIGINS: 'https://example.com/' }, /PASSLANE_WEBAUTHN_ORIGINS.*origin alone/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_WEBAUTHN_ORIGINS: 'https://example.net' }, /PASSLANE_WEBAUTHN_ORIGINS.*neither the RP ID/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_WEBAUTHN_ORIGINS: 'https://badexample.com' }, /PASSLANE_WEBAUTHN_ORIGINS.*neither the RP ID/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'localhost', PASSLANE_WEBAUTHN_ORIGINS: 'http://127.0.0.1:3000' }, /PASSLANE_WEBAUTHN_ORIGINS.*use localhost/],
    [{ PASSLANE_WEBAUTHN_RP_ID: 'example.com', PASSLANE_WEBAUTHN_RP_NAME: 'two\nlines' }, /PASSLANE_WEBAUTHN_RP_NAME/],
  ])('refuses %j', (env, message) => {
    expect(() => readConfig(env)).toThrow(message);
  });
});
