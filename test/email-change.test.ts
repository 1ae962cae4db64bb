/**
 * Change of email (issue 35): the request behind a recent login (with a factor where there is
 * one), the link to the new address, the switch of the account's items (one transaction on
 * DynamoDB Local, ordered writes on dynalite), races for one address and against a password
 * change or a deletion, and the old address's undo link; through the API (hono, in process) and
 * the use cases on both real DynamoDB servers, with captured mail and a clock the test moves.
 */
import { DeleteItemCommand, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { inProcessApi, type ApiAnswer } from './support/in-process-api.js';
import { register } from '../packages/server/src/features/register/register.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { DEFAULT_RECOVERY_CONFIG } from '../packages/server/src/features/recovery/settings.js';
import { EmailSwitchStore, SWITCH_PENDING_HASH } from '../packages/server/src/storage/email-switch-store.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const SOURCE = '198.51.100.7';
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };

type Answer = ApiAnswer;

describe.each(dynamoDbServers)('change of email on $name', ({ name, start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A fixture with its API in process (passkeys on). */
  async function fixture(overrides: Partial<AppDependencies> = {}) {
    // 10 minutes back: tests move it past a recent login's 5 minutes, and tokens verified at the
    // real time must not have been issued in the future (a test that moves it further uses no token after).
    const clock = movableClock(Date.now() - 600_000);
    const made = await createAuthFixture(server.endpoint, { now: clock.now, webauthn: WEBAUTHN, ...overrides });
    const call = inProcessApi(made.deps, SOURCE);
    const login = (email: string, password = PASSWORD) => call('POST', '/login', { body: { email, password } });
    return { ...made, clock, call, login };
  }

  type Fixture = Awaited<ReturnType<typeof fixture>>;

  /** A registered account signed in with its password just now. */
  async function account(f: Fixture, email = uniqueEmail(), password = PASSWORD) {
    await register(f.deps, { email, password });
    const first = await f.login(email, password);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    return { email, token: first.body.accessToken as string, userId: decodeJwt(first.body.accessToken as string).sub! };
  }

  /** POST /email/change, and the link the new address got (if any). */
  async function requestChange(f: Fixture, token: string, newEmail: string) {
    const before = f.mailbox.sent.length;
    const answer = await f.call('POST', '/email/change', { token, body: { newEmail } });
    const link = f.mailbox.sent.slice(before).find((mail) => mail.kind === 'email_change' && mail.to === newEmail.trim().toLowerCase())?.token;
    return { answer, link };
  }

  const confirm = (f: Fixture, token: string | undefined) => f.call('POST', '/email/change/confirm', { body: { token } });

  async function item(client: DynamoDBClient, tableName: string, pk: string) {
    return (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk } }, ConsistentRead: true }))).Item;
  }

  it('needs a recent login; mails the link to the new address only; the old address logs in until it is used', async () => {
    const f = await fixture();
    const { email, token } = await account(f);
    const newEmail = uniqueEmail();
    f.clock.advance(6 * 60);
    expect(await f.call('POST', '/email/change', { token, body: { newEmail } })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    expect(await f.call('POST', '/email/change', { body: { newEmail } })).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
    const fresh = (await f.login(email)).body.accessToken as string;
    expect(await f.call('POST', '/email/change', { token: fresh, body: { newEmail: 'not an address' } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await f.call('POST', '/email/change', { token: fresh, body: { newEmail: email.toUpperCase() } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    const { answer, link } = await requestChange(f, fresh, ` ${newEmail.toUpperCase()} `);
    expect(answer).toEqual({ status: 202, body: { status: 'accepted' } });
    expect(f.mailbox.sent.map((mail) => [mail.kind, mail.to])).toEqual([['email_change', newEmail]]);
    expect(f.mailbox.sent[0]!.expiresInSeconds).toBe(30 * 60);
    expect(link).toMatch(/^[0-9a-f]{16}\.[\w-]{43}$/);
    // Nothing changed yet.
    expect((await f.login(email)).status).toBe(200);
    expect((await f.login(newEmail)).status).toBe(401);
    expect(await f.users.getUserByEmail(newEmail)).toBeUndefined();
    f.dispose();
  });

  it('the link switches the account: the new address logs in as the same account, the old does not, every session ends', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const other = await f.login(email);
    const newEmail = uniqueEmail();
    const { link } = await requestChange(f, token, newEmail);
    const confirmed = await confirm(f, link);
    expect(confirmed, JSON.stringify([confirmed.body, f.events.slice(-3)])).toMatchObject({ status: 204 });
    expect(await f.login(email)).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    const moved = await f.login(newEmail);
    expect(moved.status).toBe(200);
    expect(decodeJwt(moved.body.accessToken as string).sub).toBe(userId);
    const stored = await f.users.getUserByEmail(newEmail);
    expect(stored).toMatchObject({ userId, email: newEmail, emailVerified: true });
    // The sessions from before end, refresh tokens too.
    for (const old of [token, other.body.accessToken as string]) expect((await f.call('GET', '/sessions', { token: old })).status).toBe(401);
    expect(await f.call('POST', '/token', { body: { grant_type: 'refresh_token', refresh_token: other.body.refreshToken } })).toMatchObject({ status: 400 });
    // The old address heard of it, with its undo link; no raw address in the audit trail.
    const notice = f.mailbox.last('email_changed')!;
    expect(notice).toMatchObject({ to: email, newEmail, expiresInSeconds: 7 * 86_400 });
    const trail = JSON.stringify(f.events);
    for (const secret of [email, newEmail, link!, notice.token]) expect(trail).not.toContain(secret);
    expect(f.events.map((event) => event.type)).toEqual(expect.arrayContaining(['auth.email_change_requested', 'auth.email_changed']));
    // The old address's items are gone.
    expect(await item(f.client, f.tableName, `user#${email}`)).toBeUndefined();
    expect((await item(f.client, f.tableName, `sessions#${f.deps.fingerprint(email)}`))?.sessions?.M ?? {}).toEqual({});
    // The switch ran as one transaction where the server has them (dynalite has none).
    const switches = f.deps.emailSwitches as EmailSwitchStore;
    expect(switches.usedTransactions).toBe(name !== 'dynalite');
    f.dispose();
  });

  it('refuses a wrong token, a replayed link, an expired one, and one voided by a password change', async () => {
    const f = await fixture();
    const { email, token } = await account(f);
    const { link } = await requestChange(f, token, uniqueEmail());
    const wrong = `${link!.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await confirm(f, wrong)).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect(await confirm(f, 'nonsense')).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect(await confirm(f, link)).toMatchObject({ status: 204 });
    expect(await confirm(f, link)).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });

    const g = await fixture();
    const second = await account(g, email);
    const voided = await requestChange(g, second.token, uniqueEmail());
    const fresh = second.token;
    expect((await g.call('POST', '/password', { token: fresh, body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(204);
    expect(await confirm(g, voided.link)).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect((await g.login(email, NEW_PASSWORD)).status).toBe(200);
    const late = await requestChange(g, (await g.login(email, NEW_PASSWORD)).body.accessToken as string, uniqueEmail());
    g.clock.advance(31 * 60);
    expect(await confirm(g, late.link)).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    f.dispose();
    g.dispose();
  });

  it('a taken address: the same 202, its owner told someone tried, no link, nothing changes', async () => {
    const f = await fixture();
    const { email, token } = await account(f);
    const taken = await account(f);
    const free = await requestChange(f, token, uniqueEmail());
    const tried = await requestChange(f, token, taken.email);
    expect(tried.answer).toEqual(free.answer);
    expect(tried.link).toBeUndefined();
    expect(f.mailbox.last('email_change_attempt')).toMatchObject({ to: taken.email });
    expect(f.events.filter((event) => event.type === 'auth.email_change_requested').map((event) => (event as { outcome: string }).outcome)).toEqual(['sent', 'taken']);
    expect((await f.login(email)).status).toBe(200);
    expect((await f.login(taken.email)).status).toBe(200);
    f.dispose();
  });

  it('keeps to the new mailbox\'s hourly mail budget, silently', async () => {
    const f = await fixture();
    const target = uniqueEmail();
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) {
      const { token } = await account(f);
      answers.push((await requestChange(f, token, target)).answer);
    }
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    expect(f.mailbox.sent.filter((mail) => mail.kind === 'email_change' && mail.to === target)).toHaveLength(3);
    f.dispose();
  });

  it('two accounts racing for one address: exactly one wins, the others get email_taken and keep theirs', async () => {
    const f = await fixture({ recovery: { ...DEFAULT_RECOVERY_CONFIG, mailsPerAccountPerHour: 100 } });
    const target = uniqueEmail();
    const racers = [];
    for (let i = 0; i < 6; i++) {
      const racer = await account(f, uniqueEmail(), `${PASSWORD} ${i}`);
      racers.push({ ...racer, link: (await requestChange(f, racer.token, target)).link });
    }
    const answers = await Promise.all(racers.map((racer) => confirm(f, racer.link)));
    expect(answers.filter((answer) => answer.status === 204)).toHaveLength(1);
    const losers = answers.filter((answer) => answer.status !== 204);
    expect(losers.map((answer) => answer.body)).toEqual(losers.map(() => ({ error: expect.objectContaining({ code: 'email_taken' }) })));
    const winner = racers[answers.findIndex((answer) => answer.status === 204)]!;
    expect((await f.users.getUserByEmail(target))?.userId).toBe(winner.userId);
    for (const [i, racer] of racers.entries()) {
      if (racer === winner) continue;
      expect((await f.login(racer.email, `${PASSWORD} ${i}`)).status).toBe(200);
      expect((await f.users.getUserByEmail(racer.email))?.userId).toBe(racer.userId);
    }
    // No half-switched account is left at the address: only the winner logs in there.
    expect((await f.login(target, `${PASSWORD} ${racers.indexOf(winner)}`)).status).toBe(200);
    f.dispose();
  });

  /** The switch's first write runs `meanwhile` once before it is sent (a deterministic race). */
  function beforeFirstSwitchWrite(client: DynamoDBClient, meanwhile: () => Promise<void>) {
    let done = false;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName;
        const input = args.input as { Item?: { pk?: { S?: string } } };
        const isSwitch = command === 'TransactWriteItemsCommand' || (command === 'PutItemCommand' && input.Item?.pk?.S?.startsWith('user#') === true && 'switchFrom' in (input.Item ?? {}));
        if (isSwitch && !done) {
          done = true;
          await meanwhile();
        }
        return next(args);
      },
      { step: 'initialize', name: 'raceBeforeSwitch' },
    );
  }

  it('a confirmation racing a password change: the account moves with the new password, never the old', async () => {
    const f = await fixture();
    const { email, token } = await account(f);
    const newEmail = uniqueEmail();
    const { link } = await requestChange(f, token, newEmail);
    beforeFirstSwitchWrite(f.client, async () => {
      const stored = (await f.users.getUserByEmail(email))!;
      await f.users.replacePasswordHash({ email, expectedHash: stored.passwordHash, newHash: await f.deps.hasher.hash(NEW_PASSWORD), reason: 'password-change' });
    });
    expect(await confirm(f, link)).toMatchObject({ status: 204 });
    expect((await f.login(newEmail, PASSWORD)).status).toBe(401);
    expect((await f.login(newEmail, NEW_PASSWORD)).status).toBe(200);
    expect((await f.login(email, NEW_PASSWORD)).status).toBe(401);
    f.dispose();
  });

  it('a confirmation racing a deletion of the old account item loses cleanly: nothing at the new address, which stays free', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const newEmail = uniqueEmail();
    const { link } = await requestChange(f, token, newEmail);
    beforeFirstSwitchWrite(f.client, async () => {
      await f.client.send(
        new DeleteItemCommand({ TableName: f.tableName, Key: { pk: { S: `user#${email}` } }, ConditionExpression: 'userId = :userId', ExpressionAttributeValues: { ':userId': { S: userId } } }),
      );
    });
    expect(await confirm(f, link)).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    expect(await item(f.client, f.tableName, `user#${newEmail}`)).toBeUndefined();
    expect(await item(f.client, f.tableName, `mfa#${f.deps.fingerprint(newEmail)}`)).toBeUndefined();
    await account(f, newEmail);
    f.dispose();
  });

  it('carries second factors and passkeys: a password login at the new address asks for the passkey, and a passwordless login finds the account', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const authenticator = softwareAuthenticator({ origin: ORIGIN });
    const options = await f.call('POST', '/passkeys/registration/options', { token });
    const registered = await f.call('POST', '/passkeys/registration', { token, body: { response: await authenticator.register(options.body as unknown as PublicKeyCredentialCreationOptionsJSON) } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const passwordless = async (): Promise<AuthenticationResponseJSON> =>
      authenticator.authenticate((await f.call('POST', '/passkey/login/options')).body as unknown as PublicKeyCredentialRequestOptionsJSON);
    // A password-only session cannot move an account that has a factor; one that used the passkey can.
    expect(await f.call('POST', '/email/change', { token, body: { newEmail: uniqueEmail() } })).toMatchObject({ status: 403, body: { error: { code: 'reauthentication_required' } } });
    const withFactor = (await f.call('POST', '/passkey/login', { body: { response: await passwordless() } })).body.accessToken as string;
    const newEmail = uniqueEmail();
    const { answer, link } = await requestChange(f, withFactor, newEmail);
    expect(answer.status).toBe(202);
    expect(await confirm(f, link)).toMatchObject({ status: 204 });

    const challenge = await f.login(newEmail);
    expect(challenge).toMatchObject({ status: 401, body: { error: { code: 'mfa_required' } } });
    const second = await f.call('POST', '/login/mfa', {
      body: { mfaToken: challenge.body.mfaToken, method: 'webauthn', response: await authenticator.authenticate(challenge.body.webauthn as PublicKeyCredentialRequestOptionsJSON) },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const loggedIn = await f.call('POST', '/passkey/login', { body: { response: await passwordless() } });
    expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
    expect(decodeJwt(loggedIn.body.accessToken as string).sub).toBe(userId);
    expect(await f.call('GET', '/passkeys', { token: loggedIn.body.accessToken as string })).toMatchObject({ status: 200, body: { passkeys: [{ id: (registered.body.passkey as { id: string }).id }] } });
    expect(await item(f.client, f.tableName, `mfa#${f.deps.fingerprint(email)}`)).toBeUndefined();
    f.dispose();
  });

  it('the undo link puts the old address back, ends every session, locks the password and mails a reset link there', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const newEmail = uniqueEmail();
    await confirm(f, (await requestChange(f, token, newEmail)).link);
    const intruder = await f.login(newEmail);
    expect(intruder.status).toBe(200);
    const undo = f.mailbox.last('email_changed')!.token;
    expect(await f.call('POST', '/email/change/undo', { body: { token: `${undo.split('.')[0]}.${'A'.repeat(43)}` } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    expect(await f.call('POST', '/email/change/undo', { body: { token: undo } })).toEqual({ status: 200, body: { emailRestored: true } });
    expect((await f.users.getUserByEmail(email))?.userId).toBe(userId);
    expect(await f.users.getUserByEmail(newEmail)).toBeUndefined();
    expect((await f.call('GET', '/sessions', { token: intruder.body.accessToken as string })).status).toBe(401);
    expect((await f.login(email)).status).toBe(401);
    expect((await f.login(newEmail)).status).toBe(401);
    // The reset link to the old address sets a password that works.
    const reset = f.mailbox.last('password_reset')!;
    expect(reset.to).toBe(email);
    expect((await f.call('POST', '/password/reset/confirm', { body: { token: reset.token, newPassword: NEW_PASSWORD } })).status).toBe(204);
    expect((await f.login(email, NEW_PASSWORD)).status).toBe(200);
    expect(await f.call('POST', '/email/change/undo', { body: { token: undo } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    f.dispose();
  });

  it('the old address registered again after the change is another account; an undo then cannot put it back and disables the moved one', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const newEmail = uniqueEmail();
    await confirm(f, (await requestChange(f, token, newEmail)).link);
    const newcomer = await account(f, email, NEW_PASSWORD);
    expect(newcomer.userId).not.toBe(userId);
    const moved = await f.login(newEmail);
    expect(decodeJwt(moved.body.accessToken as string).sub).toBe(userId);
    expect(await f.call('POST', '/email/change/undo', { body: { token: f.mailbox.last('email_changed')!.token } })).toEqual({ status: 200, body: { emailRestored: false } });
    // The newcomer keeps the address and logs in; the moved account is disabled and locked, its sessions ended.
    expect((await f.login(email, NEW_PASSWORD)).status).toBe(200);
    expect((await f.users.getUserByEmail(newEmail))?.disabledAt).toBeInstanceOf(Date);
    expect((await f.login(newEmail)).status).not.toBe(200);
    expect((await f.call('GET', '/sessions', { token: moved.body.accessToken as string })).status).toBe(401);
    f.dispose();
  });

  it('an expired undo link is refused', async () => {
    const f = await fixture();
    const { token } = await account(f);
    await confirm(f, (await requestChange(f, token, uniqueEmail())).link);
    f.clock.advance(7 * 86_400 + 1);
    expect(await f.call('POST', '/email/change/undo', { body: { token: f.mailbox.last('email_changed')!.token } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_token' } } });
    f.dispose();
  });
  it('a switch that stopped after its first write (a crash, without transactions) is undone by the account\'s next switch there', async () => {
    const f = await fixture();
    const { email, token, userId } = await account(f);
    const newEmail = uniqueEmail();
    // What the first of the ordered writes leaves: the new address's item, pending, naming the old address.
    await f.client.send(
      new PutItemCommand({
        TableName: f.tableName,
        Item: {
          pk: { S: `user#${newEmail}` },
          userId: { S: userId },
          email: { S: newEmail },
          passwordHash: { S: SWITCH_PENDING_HASH },
          switchFrom: { S: email },
          createdAt: { S: new Date().toISOString() },
        },
      }),
    );
    // It logs nobody in, and the old address still does.
    expect((await f.login(newEmail)).status).toBe(401);
    expect((await f.login(email)).status).toBe(200);
    const asked = await requestChange(f, token, newEmail);
    const confirmed = await confirm(f, asked.link);
    expect(confirmed, JSON.stringify([asked.answer, confirmed.body, f.events.slice(-4)])).toMatchObject({ status: 204 });
    expect((await f.login(newEmail)).status).toBe(200);
    expect((await f.users.getUserByEmail(newEmail))?.passwordHash).not.toBe(SWITCH_PENDING_HASH);
    f.dispose();
  });
});
