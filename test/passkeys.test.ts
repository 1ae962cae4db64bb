/**
 * Passkeys (issue 28): registration behind a recent login, the list, renaming, removal behind a
 * login with a second factor, passwordless login, a passkey as the second factor of POST
 * /login/mfa, and the refusals (replayed assertion, used or expired challenge, another origin or
 * RP ID, a counter gone back, a changed backup eligibility, a credential of another account, the
 * 11th passkey); recovery codes with the account's factors as a whole; the rate limit at DELETE
 * /mfa/totp. Through the API (hono, in process) and the use cases, on both real DynamoDB
 * servers, with a clock the test moves and a software authenticator answering as a browser.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { createApi } from '../packages/server/src/api/create-api.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import type { WebAuthnConfig } from '../packages/server/src/features/passkeys/settings.js';
import { register } from '../packages/server/src/features/register/register.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import { servicesOf, type ApiServices } from '../packages/server/src/wiring/api-services.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { movableClock } from './support/clock.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { softwareAuthenticator } from './support/software-authenticator.js';

const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.7';
const ORIGIN = 'https://app.example.com';
const WEBAUTHN: WebAuthnConfig = { rpId: 'example.com', origins: [ORIGIN], rpName: 'passlane-test' };

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

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
    const clock = movableClock(Math.floor(Date.now() / 30_000) * 30_000 - 170_000);
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, webauthn: WEBAUTHN, ...overrides });
    const quiet = () => {};
    const log = { info: quiet, warn: quiet, error: quiet, safeError: (error: unknown) => (error instanceof Error ? error.name : typeof error) };
    const api = createApi(API_ROUTES as AnyRoute<ApiServices>[], { services: () => servicesOf(fixture.deps), origin: () => ({ sourceIp: SOURCE, requestId: 'req' }), log });
    const call = async (method: string, path: string, options: { body?: unknown; token?: string } = {}): Promise<Answer> => {
      const headers: Record<string, string> = {};
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const response = await api.fetch(
        new Request(`http://api.test${path}`, { method, headers, ...(options.body !== undefined && { body: JSON.stringify(options.body) }) }),
      );
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    };
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const passwordLogin = () => call('POST', '/login', { body: { email, password: PASSWORD } });
    const first = await passwordLogin();
    expect(first.status).toBe(200);
    return { ...fixture, clock, call, email, passwordLogin, token: first.body.accessToken as string };
  }

  /** A passkey registered through the API, as a browser would. */
  async function withPasskey(options: { synced?: boolean } = {}, overrides: Partial<AppDependencies> = {}) {
    const account = await signedIn(overrides);
    const authenticator = softwareAuthenticator({ origin: ORIGIN, ...options });
    const registered = await registerWith(account, authenticator);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    return { ...account, authenticator, registered: registered.body as { passkey: { id: string }; recoveryCodes?: string[] } };
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
    expect(mailbox.sent.filter((mail) => mail.kind === 'mfa_changed').map((mail) => mail.change)).toEqual(['passkey_added']);

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
});
