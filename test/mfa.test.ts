/**
 * Second factors (issue 28): TOTP enrolment from the otpauth URI, login with password + code,
 * recovery codes, replay, the MFA token's limits, removal, `amr`/`auth_time`, requiring MFA;
 * through the use cases and the API (hono, in process) on both real DynamoDB servers, with a
 * clock the test moves. Codes are computed from the secret the server answered.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InsufficientUserAuthenticationError,
  InvalidCredentialsError,
  InvalidMfaCodeError,
  InvalidMfaTokenError,
  InvalidOneTimeTokenError,
  MfaAlreadyEnabledError,
  ReauthenticationRequiredError,
  UnauthenticatedError,
} from '../packages/server/src/accounts/errors.js';
import { undoFactor } from '../packages/server/src/features/mfa/undo-factor.js';
import { confirmPasswordReset } from '../packages/server/src/features/recovery/confirm-password-reset.js';
import { MfaStore } from '../packages/server/src/storage/mfa-store.js';
import { PasskeyStore } from '../packages/server/src/storage/passkey-store.js';
import { createApi } from '../packages/server/src/api/create-api.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import { confirmTotp, enrolTotp, regenerateRecoveryCodes, removeTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { register } from '../packages/server/src/features/register/register.js';
import { takeInventory } from '../packages/server/src/features/rehash/take-inventory.js';
import { authenticateSession } from '../packages/server/src/features/sessions/authenticate-session.js';
import { refreshSession } from '../packages/server/src/features/sessions/refresh-session.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import { servicesOf, type ApiServices } from '../packages/server/src/wiring/api-services.js';
import { buildSecretBox, LOCAL_MFA_KEYS_FILE, type AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { MfaKeyError } from '../packages/server/src/features/mfa/secret-box.js';
import { sourceKeyOf } from '../packages/server/src/accounts/source-key.js';
import { createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { authenticatorApp as appOf } from './support/authenticator-app.js';
import { mfaStoreChangedAfterRead } from './support/store-race.js';
import { login, type LoginResult } from '../packages/server/src/features/login/login.js';
import { loginSession, secondFactorSession, mfaRequiredOf, sessionOf } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.7';

/** What an authenticator app does with the URI (the parameters it is made for): its secret, and the code it would show at a time. */
function authenticatorApp(otpauthUri: string) {
  const uri = new URL(otpauthUri);
  expect(uri.protocol).toBe('otpauth:');
  expect(uri.host).toBe('totp');
  expect(uri.searchParams.get('algorithm')).toBe('SHA1');
  expect(uri.searchParams.get('digits')).toBe('6');
  expect(uri.searchParams.get('period')).toBe('30');
  return appOf(otpauthUri);
}

describe.each(dynamoDbServers)('second factors on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A registered account signed in with its password (a recent login), and the fixture. */
  async function signedIn(overrides: Partial<AppDependencies> = {}) {
    // 10 s into a step, minutes back: the tests move it forward, and tokens verified at the real
    // time must not have been issued in the future.
    const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 170_000);
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, ...overrides });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const passwordStep = () => login(fixture.deps, { email, password: PASSWORD, sourceIp: SOURCE });
    const first = await sessionOf(passwordStep());
    return { ...fixture, clock, email, passwordStep, first };
  }

  /** Another account on the same fixture, signed in. */
  async function signedInOn(deps: AppDependencies) {
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    return loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE });
  }

  /** TOTP enrolled and confirmed from the URI, as a user with an app would. */
  async function enrolled(overrides: Partial<AppDependencies> = {}) {
    const account = await signedIn(overrides);
    const { deps, first, clock } = account;
    const enrolment = await enrolTotp(deps, { accessToken: first.accessToken });
    const app = authenticatorApp(enrolment.otpauthUri);
    const { recoveryCodes } = await confirmTotp(deps, { accessToken: first.accessToken, code: app.codeAt(clock.now()) });
    /** A login with the password and a code of the next step: a session that used the factor, as changing factors needs. */
    const factorLogin = async () => {
      clock.advance(30);
      const challenge = await mfaToken(account.passwordStep);
      return secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    };
    return { ...account, app, enrolment, recoveryCodes: recoveryCodes!, factorLogin };
  }

  /** The password step's MFA token (it must be asked for). */
  async function mfaToken(passwordStep: () => Promise<LoginResult>) {
    return mfaRequiredOf(passwordStep());
  }

  it('enrols from the otpauth URI, then a login needs the password and a code, and its tokens say so', async () => {
    const { deps, clock, email, app, enrolment, recoveryCodes, passwordStep, mailbox, events, dispose } = await enrolled();
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(decodeURIComponent(new URL(enrolment.otpauthUri).pathname)).toBe(`/passlane-test:${email}`);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(mailbox.sent.filter((mail) => mail.kind === 'factor_added').map((mail) => mail.change)).toEqual(['totp_enabled']);

    clock.advance(30);
    const challenge = await mfaToken(passwordStep);
    expect(challenge.methods).toEqual(['totp', 'recovery_code']);
    const loggedIn = await secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    const claims = decodeJwt(loggedIn.accessToken);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.auth_time).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(loggedIn.refreshToken).toBeTruthy();
    expect(loggedIn.deviceToken).toBeTruthy();

    // A refresh later keeps the login's time and methods.
    clock.advance(600);
    const refreshed = await refreshSession(deps, { refreshToken: loggedIn.refreshToken, sourceIp: SOURCE });
    expect(decodeJwt(refreshed.accessToken)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], auth_time: claims.auth_time });
    // Never a code, secret or token in the audit trail.
    const trail = JSON.stringify(events);
    for (const secret of [enrolment.secret, challenge.mfaToken, ...recoveryCodes!]) expect(trail).not.toContain(secret);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['auth.mfa_enrolment_started', 'auth.mfa_enabled', 'auth.mfa_challenged', 'auth.mfa_succeeded']));
    dispose();
  });

  it('a password login says amr pwd and auth_time, kept across refreshes', async () => {
    const { deps, first, clock, dispose } = await signedIn();
    const claims = decodeJwt(first.accessToken);
    expect(claims).toMatchObject({ amr: ['pwd'], auth_time: Math.floor(clock.now().getTime() / 1000) });
    clock.advance(120);
    const refreshed = await refreshSession(deps, { refreshToken: first.refreshToken, sourceIp: SOURCE });
    expect(decodeJwt(refreshed.accessToken)).toMatchObject({ amr: ['pwd'], auth_time: claims.auth_time });
    dispose();
  });

  it('a TOTP code is accepted once: a replay is refused, the next step is not', async () => {
    const { deps, clock, app, passwordStep, dispose } = await enrolled();
    clock.advance(30);
    const code = app.codeAt(clock.now());
    await secondFactorSession(deps, { mfaToken: (await mfaToken(passwordStep)).mfaToken, method: 'totp', code, sourceIp: SOURCE });
    const replay = await mfaToken(passwordStep);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: replay.mfaToken, method: 'totp', code, sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaCodeError);
    // The code of the step before the one used is older still: refused too.
    expect(await failureOf(secondFactorSession(deps, { mfaToken: replay.mfaToken, method: 'totp', code: app.codeAt(new Date(clock.now().getTime() - 30_000)), sourceIp: SOURCE }))).toBeInstanceOf(
      InvalidMfaCodeError,
    );
    clock.advance(30);
    await secondFactorSession(deps, { mfaToken: replay.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    dispose();
  });

  it('takes a code one step either side, not two', async () => {
    const { deps, clock, app, passwordStep, dispose } = await enrolled();
    clock.advance(60);
    const challenge = await mfaToken(passwordStep);
    const at = (steps: number) => app.codeAt(new Date(clock.now().getTime() + steps * 30_000));
    expect(await failureOf(secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: at(2), sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaCodeError);
    await secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: at(1), sourceIp: SOURCE });
    dispose();
  });

  it('a recovery code works once, in any case and grouping, and its owner is mailed', async () => {
    const { deps, clock, recoveryCodes, passwordStep, mailbox, events, dispose } = await enrolled();
    const [code] = recoveryCodes as [string];
    const loggedIn = await secondFactorSession(deps, { mfaToken: (await mfaToken(passwordStep)).mfaToken, method: 'recovery_code', code: ` ${code.toUpperCase()} `, sourceIp: SOURCE });
    expect(decodeJwt(loggedIn.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(mailbox.sent.at(-1), JSON.stringify(events)).toMatchObject({ kind: 'mfa_changed', change: 'recovery_code_used' });
    clock.advance(1);
    const again = await mfaToken(passwordStep);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: again.mfaToken, method: 'recovery_code', code, sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaCodeError);
    await secondFactorSession(deps, { mfaToken: again.mfaToken, method: 'recovery_code', code: recoveryCodes[1]!, sourceIp: SOURCE });
    dispose();
  });

  it('new recovery codes end the old ones', async () => {
    const { deps, recoveryCodes, passwordStep, mailbox, factorLogin, dispose } = await enrolled();
    const renewed = await regenerateRecoveryCodes(deps, { accessToken: (await factorLogin()).accessToken });
    expect(renewed.recoveryCodes).toHaveLength(10);
    expect(mailbox.sent.at(-1)).toMatchObject({ kind: 'mfa_changed', change: 'recovery_codes_regenerated' });
    const challenge = await mfaToken(passwordStep);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'recovery_code', code: recoveryCodes[0]!, sourceIp: SOURCE }))).toBeInstanceOf(
      InvalidMfaCodeError,
    );
    await secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'recovery_code', code: renewed.recoveryCodes[0]!, sourceIp: SOURCE });
    dispose();
  });

  it('five wrong codes kill the MFA token, and count as failed logins of the account', async () => {
    const { deps, clock, email, app, passwordStep, events, dispose } = await enrolled();
    clock.advance(30);
    const challenge = await mfaToken(passwordStep);
    for (let i = 0; i < 5; i++) {
      expect(await failureOf(secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: '000000', sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaCodeError);
    }
    expect(await failureOf(secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE }))).toBeInstanceOf(
      InvalidMfaTokenError,
    );
    expect(events.filter((event) => event.type === 'auth.mfa_failed' && event.reason === 'wrong_code')).toHaveLength(5);
    const state = await deps.loginGuard.read({ email, accountKey: deps.fingerprint(email), sourceKey: sourceKeyOf(SOURCE), now: clock.now() });
    // The email's run also keeps the password step's attempt until a second factor is right (MFA
    // tokens cannot be minted past the ceiling); the source's own count holds the codes alone.
    expect(state.account.failures).toBe(6);
    expect(state.accountSource.failures).toBe(5);
    dispose();
  });

  it('a right password whose code is still due leaves no wait behind on its source, at the last free failure', async () => {
    // Two failures of one email from one source before the next attempt waits: one wrong
    // password, then the password step (reserved as the second, given back as a right one).
    const { deps, clock, email, app, dispose } = await enrolled({ rateLimits: limits({}, { failuresPerAccountSource: 2 }) });
    clock.advance(30);
    expect(await failureOf(loginSession(deps, { email, password: 'not the password at all', sourceIp: SOURCE }))).toBeInstanceOf(InvalidCredentialsError);
    const challenge = await mfaToken(() => login(deps, { email, password: PASSWORD, sourceIp: SOURCE }));
    const done = await secondFactorSession(deps, { mfaToken: challenge.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    expect(done.accessToken).toEqual(expect.any(String));
    dispose();
  });

  it('an expired MFA token is refused, a used one too', async () => {
    const { deps, clock, app, passwordStep, dispose } = await enrolled();
    clock.advance(30);
    const stale = await mfaToken(passwordStep);
    clock.advance(301);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: stale.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaTokenError);
    const fresh = await mfaToken(passwordStep);
    await secondFactorSession(deps, { mfaToken: fresh.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    clock.advance(30);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: fresh.mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaTokenError);
    expect(await failureOf(secondFactorSession(deps, { mfaToken: 'not-a-token', method: 'totp', code: '123456', sourceIp: SOURCE }))).toBeInstanceOf(InvalidMfaTokenError);
    dispose();
  });

  it('changing factors needs a login within 5 minutes; enrolling again needs removal first', async () => {
    const { deps, clock, factorLogin, dispose } = await enrolled();
    const second = await factorLogin();
    expect(await failureOf(enrolTotp(deps, { accessToken: second.accessToken }))).toBeInstanceOf(MfaAlreadyEnabledError);
    clock.advance(301);
    expect(await failureOf(regenerateRecoveryCodes(deps, { accessToken: second.accessToken }))).toBeInstanceOf(ReauthenticationRequiredError);
    expect(await failureOf(removeTotp(deps, { accessToken: second.accessToken, method: 'totp', code: '000000' }))).toBeInstanceOf(ReauthenticationRequiredError);
    dispose();
  });

  it('removal needs a second factor, then logins need the password alone', async () => {
    const { deps, clock, app, passwordStep, mailbox, factorLogin, dispose } = await enrolled();
    const second = await factorLogin();
    clock.advance(30);
    expect(await failureOf(removeTotp(deps, { accessToken: second.accessToken, method: 'totp', code: '000000' }))).toBeInstanceOf(InvalidMfaCodeError);
    await removeTotp(deps, { accessToken: second.accessToken, method: 'totp', code: app.codeAt(clock.now()) });
    expect(mailbox.sent.at(-1)).toMatchObject({ kind: 'mfa_changed', change: 'totp_removed' });
    expect(decodeJwt((await sessionOf(passwordStep())).accessToken).amr).toEqual(['pwd']);
    dispose();
  });

  it('with MFA required, a password-only token is refused on Bearer routes but may enrol', async () => {
    const { deps, first, clock, passwordStep, dispose } = await signedIn({ requireMfa: true });
    expect(await failureOf(authenticateSession(deps, first.accessToken, clock.now()))).toBeInstanceOf(InsufficientUserAuthenticationError);
    const app = authenticatorApp((await enrolTotp(deps, { accessToken: first.accessToken })).otpauthUri);
    await confirmTotp(deps, { accessToken: first.accessToken, code: app.codeAt(clock.now()) });
    clock.advance(30);
    const loggedIn = await secondFactorSession(deps, { mfaToken: (await mfaToken(passwordStep)).mfaToken, method: 'totp', code: app.codeAt(clock.now()), sourceIp: SOURCE });
    await authenticateSession(deps, loggedIn.accessToken, clock.now());
    dispose();
  });

  it('only a factor changes factors: the enabling password-only session can no longer enrol, regenerate or remove', async () => {
    const { deps, first, clock, app, events, factorLogin, dispose } = await enrolled();
    // The session that turned TOTP on goes on, still password-only, and may change nothing now.
    expect(decodeJwt((await refreshSession(deps, { refreshToken: first.refreshToken, sourceIp: SOURCE })).accessToken).amr).toEqual(['pwd']);
    expect(await failureOf(enrolTotp(deps, { accessToken: first.accessToken }))).toBeInstanceOf(ReauthenticationRequiredError);
    expect(await failureOf(confirmTotp(deps, { accessToken: first.accessToken, code: app.codeAt(clock.now()) }))).toBeInstanceOf(ReauthenticationRequiredError);
    expect(await failureOf(regenerateRecoveryCodes(deps, { accessToken: first.accessToken }))).toBeInstanceOf(ReauthenticationRequiredError);
    expect(await failureOf(removeTotp(deps, { accessToken: first.accessToken, method: 'totp', code: app.codeAt(clock.now()) }))).toBeInstanceOf(ReauthenticationRequiredError);
    expect(events.filter((event) => event.type === 'auth.mfa_failed' && event.reason === 'mfa_login_required')).toHaveLength(4);
    // A login with the factor may.
    expect((await regenerateRecoveryCodes(deps, { accessToken: (await factorLogin()).accessToken })).recoveryCodes).toHaveLength(10);
    dispose();
  });

  it('turning a factor on ends the other password-only sessions, not the enabling one, and says how many', async () => {
    const { deps, first, clock, passwordStep, events, dispose } = await signedIn();
    const [other, third] = [await sessionOf(passwordStep()), await sessionOf(passwordStep())];
    const app = authenticatorApp((await enrolTotp(deps, { accessToken: first.accessToken })).otpauthUri);
    const confirmed = await confirmTotp(deps, { accessToken: first.accessToken, code: app.codeAt(clock.now()) });
    expect(confirmed.sessionsEnded).toBe(2);
    for (const ended of [other, third]) expect(await failureOf(authenticateSession(deps, ended.accessToken, clock.now()))).toBeInstanceOf(UnauthenticatedError);
    expect((await authenticateSession(deps, first.accessToken, clock.now())).session.amr ?? ['pwd']).toEqual(['pwd']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.sessions_ended', count: 2, reason: 'factor_enabled' }));
    dispose();
  });

  it("a password-only session's first factor loses to a factor enrolled meanwhile (the write decides, not the read)", async () => {
    const { deps, client, tableName, first, clock, email, dispose } = await signedIn();
    const store = new MfaStore(client, tableName);
    const accountKey = deps.fingerprint(email);
    const app = authenticatorApp((await enrolTotp(deps, { accessToken: first.accessToken })).otpauthUri);
    // Right after confirm's read ("no factor yet"), another session registers a passkey.
    const registerElsewhere = async () => {
      await new PasskeyStore(client, tableName).add(accountKey, {
        userId: decodeJwt(first.accessToken).sub!,
        credentialId: 'concurrent',
        passkey: { publicKey: new Uint8Array(8), counter: 0, transports: [], backupEligible: false, backedUp: false, name: 'Theirs', createdAt: 1, aaguid: '' },
        max: 10,
        hadPasskeys: false,
        recoveryCodes: ['hash'],
      });
    };
    const racing = { ...deps, mfa: mfaStoreChangedAfterRead(store, registerElsewhere) };
    expect(await failureOf(confirmTotp(racing, { accessToken: first.accessToken, code: app.codeAt(clock.now()) }))).toBeInstanceOf(ReauthenticationRequiredError);
    const factors = await store.read(accountKey);
    expect(factors?.totpSecret).toBeUndefined();
    expect(factors?.recoveryCodes).toEqual(['hash']);
    dispose();
  });

  it("the mail's undo link removes that factor, ends every session, and the password works only after a reset", async () => {
    const { deps, first, clock, email, mailbox, events, factorLogin, users, dispose } = await enrolled();
    const undo = mailbox.last('factor_added')!;
    expect(undo).toMatchObject({ change: 'totp_enabled', expiresInSeconds: 7 * 86_400 });
    const second = await factorLogin();
    clock.advance(6 * 86_400);
    expect(await undoFactor(deps, { token: undo.token })).toEqual({ factorRemoved: true });
    expect((await deps.mfa.read(deps.fingerprint(email)))?.totpSecret).toBeUndefined();
    expect((await deps.mfa.read(deps.fingerprint(email)))?.recoveryCodes).toEqual([]);
    const sessions = await deps.sessions.read(deps.fingerprint(email));
    expect([sessions.sessions.size, sessions.devices.size]).toEqual([0, 0]);
    for (const ended of [first, second]) expect(await failureOf(refreshSession(deps, { refreshToken: ended.refreshToken, sourceIp: SOURCE }))).toBeDefined();
    // The password the adder knew works no more; the mailbox's reset link sets a new one.
    expect(await failureOf(loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE }))).toBeInstanceOf(InvalidCredentialsError);
    expect((await users.getUserByEmail(email))?.passwordHash).toBe('!reset-required');
    // Answered as a wrong password, and audited as what it is, not as a record an operator must look at.
    expect(events.filter((event) => event.type === 'auth.stored_hash_rejected')).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.login_failed', reason: 'password_reset_required' }));
    const reset = mailbox.last('password_reset')!;
    await confirmPasswordReset(deps, { token: reset.token, newPassword: 'another long passphrase' });
    expect(decodeJwt((await loginSession(deps, { email, password: 'another long passphrase', sourceIp: SOURCE })).accessToken).amr).toEqual(['pwd']);
    // Once.
    expect(await failureOf(undoFactor(deps, { token: undo.token }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(await failureOf(undoFactor(deps, { token: 'not a token' }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(events).toContainEqual({ type: 'auth.factor_undone', userId: decodeJwt(first.accessToken).sub, factor: 'totp', removed: true });
    expect(JSON.stringify(events)).not.toContain(undo.token.split('.')[1]);
    dispose();
  });

  it('an undo link works 7 days, and removes only the factor its mail was about', async () => {
    const { deps, clock, email, mailbox, factorLogin, app, dispose } = await enrolled();
    const undo = mailbox.last('factor_added')!;
    // The owner replaces TOTP: the old link's factor is gone, the new one is theirs.
    const second = await factorLogin();
    clock.advance(30);
    await removeTotp(deps, { accessToken: second.accessToken, method: 'totp', code: app.codeAt(clock.now()) });
    const third = await loginSession(deps, { email, password: PASSWORD, sourceIp: SOURCE });
    const renewed = authenticatorApp((await enrolTotp(deps, { accessToken: third.accessToken })).otpauthUri);
    await confirmTotp(deps, { accessToken: third.accessToken, code: renewed.codeAt(clock.now()) });
    const secret = (await deps.mfa.read(deps.fingerprint(email)))?.totpSecret;
    expect(await undoFactor(deps, { token: undo.token })).toEqual({ factorRemoved: false });
    expect((await deps.mfa.read(deps.fingerprint(email)))?.totpSecret).toBe(secret);
    const later = mailbox.last('factor_added')!;
    clock.advance(7 * 86_400 + 1);
    expect(await failureOf(undoFactor(deps, { token: later.token }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect((await deps.mfa.read(deps.fingerprint(email)))?.totpSecret).toBe(secret);
    dispose();
  });

  it('passlane inventory counts the accounts with TOTP, and no factors item as an account', async () => {
    const { deps, users, app, clock, factorLogin, dispose } = await enrolled();
    const second = await factorLogin();
    await register(deps, { email: uniqueEmail(), password: PASSWORD });
    // A pending enrolment is no factor yet.
    const pending = await signedInOn(deps);
    await enrolTotp(deps, { accessToken: pending.accessToken });
    let inventory = await takeInventory({ hasher: deps.hasher, users }, { segments: 2 });
    expect(inventory.total).toBe(3);
    expect(inventory.factors).toMatchObject({ totp: 1 });
    clock.advance(30);
    await removeTotp(deps, { accessToken: second.accessToken, method: 'totp', code: app.codeAt(clock.now()) });
    inventory = await takeInventory({ hasher: deps.hasher, users }, { segments: 2 });
    expect(inventory.factors).toMatchObject({ totp: 0 });
    dispose();
  });

  it('over HTTP: a wrong password on an MFA account answers as on any account; a right one answers mfa_required', async () => {
    const { deps, clock, email, app, dispose } = await enrolled();
    const plain = uniqueEmail();
    await register(deps, { email: plain, password: PASSWORD });
    const quiet = () => {};
    const log = { info: quiet, warn: quiet, error: quiet, safeError: (error: unknown) => (error instanceof Error ? error.name : typeof error) };
    const api = createApi(API_ROUTES as AnyRoute<ApiServices>[], { services: () => servicesOf(deps), origin: () => ({ sourceIp: SOURCE, requestId: 'req' }), log });
    const post = async (path: string, body: object) => {
      const response = await api.fetch(new Request(`http://api.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
      return { status: response.status, headers: { 'set-cookie': response.headers.get('set-cookie') ?? undefined, 'www-authenticate': response.headers.get('www-authenticate') ?? undefined }, body: (await response.json()) as Record<string, unknown> };
    };
    const wrongOnMfa = await post('/login', { email, password: 'a wrong password here' });
    const wrongOnPlain = await post('/login', { email: plain, password: 'a wrong password here' });
    expect(wrongOnMfa).toEqual(wrongOnPlain);
    expect(wrongOnMfa.status).toBe(401);
    expect(await failureOf(loginSession(deps, { email, password: 'a wrong password here' }))).toBeInstanceOf(InvalidCredentialsError);

    clock.advance(30);
    const challenge = await post('/login', { email, password: PASSWORD });
    expect(challenge.status).toBe(401);
    expect(challenge.body).toEqual({ error: { code: 'mfa_required', message: expect.any(String) }, mfaToken: expect.any(String), methods: ['totp', 'recovery_code'] });
    const done = await post('/login/mfa', { mfaToken: challenge.body.mfaToken, method: 'totp', code: app.codeAt(clock.now()) });
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(['accessToken', 'deviceExpiresIn', 'deviceToken', 'expiresIn', 'refreshExpiresIn', 'refreshToken', 'tokenType']);
    expect(done.headers['set-cookie']).toMatch(/^__Host-passlane-device-/);
    const badMethod = await post('/login/mfa', { mfaToken: challenge.body.mfaToken, method: 'sms', code: '123456' });
    expect(badMethod).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    dispose();
  });
});

describe('the key that seals TOTP secrets', () => {
  it('is generated once into the data directory where none is configured, and reused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'passlane-mfa-'));
    try {
      const secret = crypto.getRandomValues(new Uint8Array(20));
      const sealed = await buildSecretBox(readConfig({ PASSLANE_DATA_DIR: dir })).seal('account', secret);
      expect(await readFile(join(dir, LOCAL_MFA_KEYS_FILE), 'utf8')).toMatch(/^local:[A-Za-z0-9+/]{43}=\n$/);
      expect(sealed).toMatch(/^local\./);
      // Another process (a restart) opens it with the same file; another account's key does not.
      const again = buildSecretBox(readConfig({ PASSLANE_DATA_DIR: dir }));
      expect(await again.open('account', sealed)).toEqual(secret);
      await expect(again.open('another account', sealed)).rejects.toThrow(MfaKeyError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('must be configured on Lambda, and a configured list rotates: the first seals, every one opens', async () => {
    const lambda = buildSecretBox(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'passlane-mfa' }));
    await expect(lambda.seal('account', new Uint8Array(20))).rejects.toThrow(/PASSLANE_MFA_KEYS/);
    const key = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
    const old = `2026-01:${key()}`;
    const sealedBefore = await buildSecretBox(readConfig({ PASSLANE_MFA_KEYS: old })).seal('account', new Uint8Array(20).fill(1));
    const rotated = buildSecretBox(readConfig({ PASSLANE_MFA_KEYS: `2026-12:${key()},${old}` }));
    expect(await rotated.open('account', sealedBefore)).toEqual(new Uint8Array(20).fill(1));
    expect(await rotated.seal('account', new Uint8Array(20))).toMatch(/^2026-12\./);
    expect(() => readConfig({ PASSLANE_MFA_KEYS: 'k1:c2hvcnQ=' })).toThrow(/PASSLANE_MFA_KEYS.*32 bytes/);
    expect(() => readConfig({ PASSLANE_MFA_ISSUER: 'Example: Inc' })).toThrow(/PASSLANE_MFA_ISSUER/);
  });
});
