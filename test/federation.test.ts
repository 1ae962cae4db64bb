/**
 * Sign-in with providers (issue 36), against a real OpenID provider (panva's oidc-provider on a
 * loopback port: test/support/oidc-provider.ts): the authorization code flow with `query` and
 * with `form_post`, GitHub's plain OAuth 2.0 (the same provider without `openid`, and its user
 * API), the app code and its PKCE verifier, identities and linking, the second factor; and the
 * refusals: a wrong or replayed `state`, a callback from another browser, a wrong `nonce`, `aud`
 * or `iss`, an expired, foreign-signed or `alg: none` ID token, an unverified provider email
 * meeting an account, a `redirect_to` off the allow-list, a replayed app code, a code without its
 * verifier; one account under many concurrent first sign-ins. Through the API (hono, in process)
 * on both real DynamoDB servers, driven by fetch as a browser would be.
 */
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../packages/server/src/api/create-api.js';
import type { AnyRoute } from '../packages/server/src/api/route.js';
import { confirmTotp, enrolTotp } from '../packages/server/src/features/mfa/manage-totp.js';
import { createProviderDirectory } from '../packages/server/src/features/federation/provider-directory.js';
import { resolveIdentity } from '../packages/server/src/features/federation/resolve-identity.js';
import type { FederationConfig } from '../packages/server/src/features/federation/settings.js';
import { register } from '../packages/server/src/features/register/register.js';
import { deleteAccount } from '../packages/server/src/features/account/delete-account.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';
import { servicesOf, type ApiServices } from '../packages/server/src/wiring/api-services.js';
import { authenticatorApp } from './support/authenticator-app.js';
import { asCaller, createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { movableClock } from './support/clock.js';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.js';
import { throughProvider as followProvider } from './support/provider-browser.js';
import { startHost } from './support/api-hosts.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable } from '../packages/server/src/storage/table.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { generateSigningKey } from '../packages/server/src/features/tokens/keys.js';

const PUBLIC = 'http://passlane.test';
/** The Node host's public URL: read from the environment, where it must be https. */
const NODE_PUBLIC = 'https://passlane.test';
const APP = 'https://app.example.com';
const PASSWORD = 'correct horse battery staple';
const SOURCE = '198.51.100.9';

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

describe.each(dynamoDbServers)('sign-in with providers on $name', ({ name, start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  let oidc: TestOidcProvider;
  let formPost: TestOidcProvider;
  let github: TestOidcProvider;
  let federation: FederationConfig;

  beforeAll(async () => {
    server = await start();
    const callback = (name: string) => `${PUBLIC}/oauth/${name}/callback`;
    [oidc, formPost, github] = await Promise.all([
      startOidcProvider({ redirectUris: [callback('oidc'), callback('oidc-mfa'), `${NODE_PUBLIC}/oauth/oidc/callback`] }),
      startOidcProvider({ redirectUris: [callback('apple')] }),
      startOidcProvider({ redirectUris: [callback('github')] }),
    ]);
    const common = { redirectOrigins: [APP], trustMfa: false };
    federation = {
      publicUrl: PUBLIC,
      providers: [
        { kind: 'oidc', name: 'oidc', issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret, scopes: ['openid', 'email'], responseMode: 'query', ...common },
        { kind: 'oidc', name: 'oidc-mfa', issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret, scopes: ['openid', 'email'], responseMode: 'query', ...common, trustMfa: true },
        { kind: 'oidc', name: 'apple', issuer: formPost.issuer, clientId: formPost.clientId, clientSecret: formPost.clientSecret, scopes: ['openid', 'email'], responseMode: 'form_post', ...common },
        {
          kind: 'github',
          name: 'github',
          clientId: github.clientId,
          clientSecret: github.clientSecret,
          scopes: ['read:user', 'user:email'],
          authorizationUrl: `${github.issuer}/auth`,
          tokenUrl: `${github.issuer}/token`,
          ...github.githubApi,
          ...common,
        },
      ],
    };
  });
  afterAll(async () => {
    await Promise.all([oidc?.stop(), formPost?.stop(), github?.stop()]);
    await server?.stop();
  });

  async function harness(clock?: { now: () => Date }) {
    const fixture = await createAuthFixture(server.endpoint, { providers: createProviderDirectory(federation), ...(clock !== undefined && { now: clock.now }) });
    const quiet = () => {};
    const log = { info: quiet, warn: quiet, error: quiet, safeError: (error: unknown) => (error instanceof Error ? error.name : typeof error) };
    const api = createApi(API_ROUTES as AnyRoute<ApiServices>[], { services: () => servicesOf(fixture.deps), origin: () => ({ sourceIp: SOURCE, requestId: 'req' }), log });
    const raw = (request: Request) => api.fetch(request);
    const call = async (method: string, path: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Answer> => {
      const headers: Record<string, string> = { ...options.headers };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const response = await raw(new Request(`${PUBLIC}${path}`, { method, headers, ...(options.body !== undefined && { body: JSON.stringify(options.body) }) }));
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    };

    /** GET /oauth/{provider}/start as the app's page sends the browser there, with the app's own PKCE pair. */
    async function startAt(provider: string, redirectTo = `${APP}/signed-in?from=test`) {
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const started = await raw(new Request(`${PUBLIC}/oauth/${provider}/start?redirect_to=${encodeURIComponent(redirectTo)}&code_challenge=${challenge}&code_challenge_method=S256`));
      const cookie = started.headers.get('set-cookie')?.split(';')[0];
      return { started, verifier, cookie };
    }

    /**
     * The browser at the provider: its redirects and interactions followed (its own cookies kept)
     * until it sends the browser back to passlane's callback: the request it would make (a GET,
     * or the form post of `form_post`), not yet sent.
     */
    async function throughProvider(location: string, publicUrl = PUBLIC): Promise<Request> {
      const back = await followProvider(location, publicUrl);
      if (back.method === 'GET') return new Request(back.url);
      return new Request(back.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: back.form!.toString() });
    }

    /** The callback as the browser sends it, with the cookie the start set (or the one a test chose). */
    async function deliver(callback: Request, cookie: string | undefined): Promise<{ response: Response; location: URL | undefined }> {
      const headers = new Headers(callback.headers);
      if (cookie !== undefined) headers.set('cookie', cookie);
      const response = await raw(new Request(callback, { headers }));
      const location = response.headers.get('location');
      return { response, location: location === null ? undefined : new URL(location) };
    }

    /** A whole sign-in up to the app's page: its code (or error) and the app's verifier. */
    async function signIn(provider: string) {
      const { started, verifier, cookie } = await startAt(provider);
      expect(started.status, await started.clone().text()).toBe(302);
      const callback = await throughProvider(started.headers.get('location')!);
      const { response, location } = await deliver(callback, cookie);
      expect(response.status, await response.clone().text()).toBe(302);
      return { verifier, location: location!, code: location!.searchParams.get('code') ?? undefined, error: location!.searchParams.get('error') ?? undefined, callback, cookie };
    }

    const redeem = (code: string | undefined, codeVerifier: string | undefined) => call('POST', '/oauth/token', { body: { code, ...(codeVerifier !== undefined && { codeVerifier }) } });

    /** A sign-in redeemed: the login's answer. */
    async function signedIn(provider: string): Promise<Answer> {
      const { code, verifier, error } = await signIn(provider);
      expect(error).toBeUndefined();
      return redeem(code, verifier);
    }

    return { ...fixture, call, raw, startAt, throughProvider, deliver, signIn, signedIn, redeem };
  }

  const subject = () => `sub-${crypto.randomUUID()}`;
  const amrOf = (answer: Answer) => decodeJwt(answer.body.accessToken as string).amr;
  const userOf = (answer: Answer) => decodeJwt(answer.body.accessToken as string).sub;

  it('makes an account at a first sign-in (amr fed), lists its identity, and signs the same identity in to it again', async () => {
    const h = await harness();
    const email = uniqueEmail();
    oidc.signInAs({ sub: subject(), email, emailVerified: true });
    const first = await h.signedIn('oidc');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ tokenType: 'Bearer', refreshToken: expect.any(String), deviceToken: expect.any(String) });
    expect(amrOf(first)).toEqual(['fed']);
    const user = await h.users.getUserByEmail(email);
    expect(user).toMatchObject({ userId: userOf(first), emailVerified: true });
    const listed = await h.call('GET', '/identities', { token: first.body.accessToken as string });
    expect(listed.status).toBe(200);
    expect(listed.body.identities).toEqual([expect.objectContaining({ provider: 'oidc', email })]);
    const again = await h.signedIn('oidc');
    expect(again.status).toBe(200);
    expect(userOf(again)).toBe(userOf(first));
    expect(h.events.filter((event) => event.type === 'auth.federated_account_created')).toHaveLength(1);
    // No password opens it.
    expect((await h.call('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(401);
  });

  it('a deleted account is not made again by its identity: the next sign-in makes a new account, and a stale claim is released', async () => {
    const h = await harness();
    const email = uniqueEmail();
    const sub = subject();
    oidc.signInAs({ sub, email, emailVerified: true });
    const first = await h.signedIn('oidc');
    expect(first.status).toBe(200);
    await deleteAccount(h.deps, { userId: userOf(first)!, actor: { kind: 'owner' } });
    expect(await h.deps.identities.read('oidc', sub)).toBeUndefined();
    const again = await h.signedIn('oidc');
    expect(again.status).toBe(200);
    expect(userOf(again)).not.toBe(userOf(first));

    // A lookup its account listed, whose account went without it (a crash mid-deletion): released, not made again.
    const second = userOf(again)!;
    await h.deps.users.deleteUser(email, second);
    const third = await h.signedIn('oidc');
    expect(third.status).toBe(200);
    expect(userOf(third)).not.toBe(second);
  });

  it('takes the callback as a form post (response_mode=form_post)', async () => {
    const h = await harness();
    formPost.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
    const { callback } = await h.signIn('apple').then((result) => ({ ...result }));
    expect(callback.method).toBe('POST');
    formPost.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
    const answer = await h.signedIn('apple');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(amrOf(answer)).toEqual(['fed']);
  });

  it("signs in with GitHub's plain OAuth 2.0: the user API's id and verified primary email", async () => {
    const h = await harness();
    const email = uniqueEmail();
    const sub = String(100000 + Math.floor(Math.random() * 1e9));
    github.signInAs({ sub, email, emailVerified: true });
    const answer = await h.signedIn('github');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const listed = await h.call('GET', '/identities', { token: answer.body.accessToken as string });
    expect(listed.body.identities).toEqual([expect.objectContaining({ provider: 'github', subject: sub, email })]);
    // An unverified primary email makes no account.
    github.signInAs({ sub: String(Number(sub) + 1), email: uniqueEmail(), emailVerified: false });
    const refused = await h.signedIn('github');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'provider_email_unverified' } });
  });

  it('links nothing silently to an existing account: link_required, then a password login links it, and both ways sign in', async () => {
    const h = await harness();
    const email = uniqueEmail();
    await register(h.deps, { email, password: PASSWORD });
    const sub = subject();
    oidc.signInAs({ sub, email, emailVerified: true });
    const refused = await h.signedIn('oidc');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'identity_link_required' }, linkToken: expect.any(String) });
    expect(refused.body.accessToken).toBeUndefined();
    const login = await h.call('POST', '/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    expect((await h.call('GET', '/identities', { token })).body.identities).toEqual([]);
    // The link token is the account's alone, and used once.
    const linked = await h.call('POST', '/identities/link', { token, body: { linkToken: refused.body.linkToken } });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect((await h.call('POST', '/identities/link', { token, body: { linkToken: refused.body.linkToken } })).body).toMatchObject({ error: { code: 'invalid_token' } });
    const federated = await h.signedIn('oidc');
    expect(federated.status).toBe(200);
    expect(userOf(federated)).toBe(userOf(login));
    expect((await h.call('POST', '/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    // With a password, the only identity may go; then the identity no longer signs in to it.
    const id = (linked.body as { id: string }).id;
    expect((await h.call('DELETE', `/identities/${id}`, { token })).status).toBe(204);
    expect((await h.signedIn('oidc')).status).toBe(409);
  });

  it('refuses an unverified provider email that meets an account: no account, no link', async () => {
    const h = await harness();
    const email = uniqueEmail();
    await register(h.deps, { email, password: PASSWORD });
    oidc.signInAs({ sub: subject(), email, emailVerified: false });
    const refused = await h.signedIn('oidc');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'provider_email_unverified' } });
    expect(refused.body.linkToken).toBeUndefined();
    const login = await h.call('POST', '/login', { body: { email, password: PASSWORD } });
    expect((await h.call('GET', '/identities', { token: login.body.accessToken as string })).body.identities).toEqual([]);
  });

  it("asks an account's second factor after a federated login, unless the provider's is trusted and was used", async () => {
    const h = await harness();
    const email = uniqueEmail();
    const sub = subject();
    oidc.signInAs({ sub, email, emailVerified: true, amr: ['pwd', 'mfa'] });
    const first = await h.signedIn('oidc');
    expect(first.status).toBe(200);
    const enrolment = await asCaller(h.deps, first.body.accessToken as string, 'recent', (caller) => enrolTotp(h.deps, { caller }));
    await asCaller(h.deps, first.body.accessToken as string, 'recent', (caller) => confirmTotp(h.deps, { caller, code: authenticatorApp(enrolment.otpauthUri).codeAt(new Date()) }));
    // The provider said mfa, but this provider's claim is not trusted.
    const untrusted = await h.signedIn('oidc');
    expect(untrusted.status).toBe(401);
    expect(untrusted.body).toMatchObject({ error: { code: 'mfa_required' }, mfaToken: expect.any(String) });
    // The same provider under settings that trust it.
    await h.deps.identities.claim('oidc-mfa', sub, { userId: userOf(first) as string, email, accountKey: h.deps.fingerprint(email) }, new Date());
    const trusted = await h.signedIn('oidc-mfa');
    expect(trusted.status, JSON.stringify(trusted.body)).toBe(200);
    expect(amrOf(trusted)).toEqual(['fed', 'mfa']);
    // Trusted, but the provider's login used no second factor.
    oidc.signInAs({ sub, email, emailVerified: true, amr: ['pwd'] });
    expect((await h.signedIn('oidc-mfa')).status).toBe(401);
  });

  it('keeps the only way into an account without password or passkey', async () => {
    const h = await harness();
    oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
    const answer = await h.signedIn('oidc');
    const token = answer.body.accessToken as string;
    const [identity] = (await h.call('GET', '/identities', { token })).body.identities as { id: string }[];
    const refused = await h.call('DELETE', `/identities/${identity!.id}`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'last_sign_in_method' } });
    expect((await h.call('DELETE', '/identities/oidc.bm8', { token })).body).toMatchObject({ error: { code: 'identity_not_found' } });
    expect((await h.signedIn('oidc')).status).toBe(200);
  });

  it('links a second provider after a federated login, and of two removals racing for the last two identities, one wins', async () => {
    const h = await harness();
    const email = uniqueEmail();
    oidc.signInAs({ sub: subject(), email, emailVerified: true });
    const first = await h.signedIn('oidc');
    const token = first.body.accessToken as string;
    github.signInAs({ sub: String(200000 + Math.floor(Math.random() * 1e9)), email, emailVerified: true });
    const refused = await h.signedIn('github');
    expect(refused.body).toMatchObject({ error: { code: 'identity_link_required' } });
    // Another account's session cannot take the link.
    oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
    const stranger = await h.signedIn('oidc');
    expect((await h.call('POST', '/identities/link', { token: stranger.body.accessToken as string, body: { linkToken: refused.body.linkToken } })).body).toMatchObject({ error: { code: 'invalid_token' } });
    // Spent by that refusal: the link is asked again.
    const again = await h.signedIn('github');
    expect((await h.call('POST', '/identities/link', { token, body: { linkToken: again.body.linkToken } })).status).toBe(201);
    expect(userOf(await h.signedIn('github'))).toBe(userOf(first));
    const identities = (await h.call('GET', '/identities', { token })).body.identities as { id: string }[];
    expect(identities).toHaveLength(2);
    const removals = await Promise.all(identities.map(({ id }) => h.call('DELETE', `/identities/${id}`, { token })));
    expect(removals.map((answer) => answer.status).sort()).toEqual([204, 409]);
    expect((await h.call('GET', '/identities', { token })).body.identities).toHaveLength(1);
  });

  // The Worker (its bundle built, in Miniflare) once, on dynalite, as the contract suite runs it.
  it.each(name === 'dynalite' ? (['node', 'workerd'] as const) : (['node'] as const))('signs in on the %s host, its providers read from PASSLANE_OAUTH_PROVIDERS', async (hostName) => {
    const h = await harness();
    const table = `federation-node-${crypto.randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: server.endpoint }), table, { maxWaitSeconds: 10 });
    const dataDir = await mkdtemp(join(tmpdir(), 'federation-node-'));
    const host = await startHost(hostName, {
      DYNAMODB_ENDPOINT: server.endpoint,
      PASSLANE_TABLE: table,
      PASSLANE_DATA_DIR: dataDir,
      PASSLANE_JWT_PRIVATE_KEY: JSON.stringify(await generateSigningKey('ES256')),
      PASSLANE_PUBLIC_URL: NODE_PUBLIC,
      PASSLANE_FINGERPRINT_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
      PASSLANE_MFA_KEYS: `node:${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`,
      PASSLANE_OAUTH_PROVIDERS: JSON.stringify({ oidc: { kind: 'oidc', issuer: oidc.issuer, clientId: oidc.clientId, scopes: ['openid', 'email'], redirectOrigins: [APP] } }),
      PASSLANE_OAUTH_OIDC_CLIENT_SECRET: oidc.clientSecret,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDFEDERATION',
      AWS_SECRET_ACCESS_KEY: 'federation-secret',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    try {
      // The Worker calls the provider (discovery, token, keys) with its own fetch.
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const started = await host.send({ method: 'GET', path: `/oauth/oidc/start?redirect_to=${encodeURIComponent(`${APP}/done`)}&code_challenge=${challenge}` });
      expect(started.statusCode, started.body).toBe(302);
      oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
      const callback = new URL((await h.throughProvider(started.headers.location!, NODE_PUBLIC)).url);
      expect(callback.origin).toBe(NODE_PUBLIC);
      const back = await host.send({ method: 'GET', path: `${callback.pathname}${callback.search}`, headers: { cookie: started.headers['set-cookie']!.split(';')[0]! } });
      expect(back.statusCode, back.body).toBe(302);
      const code = new URL(back.headers.location!).searchParams.get('code');
      const answer = await host.send({ method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, codeVerifier: verifier }) });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(decodeJwt((JSON.parse(answer.body) as { accessToken: string }).accessToken).amr).toEqual(['fed']);
    } finally {
      await host.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe('refuses', () => {
    it('a redirect_to off the allow-list, before the provider is asked', async () => {
      const h = await harness();
      for (const target of ['https://evil.example/x', 'https://app.example.com.evil.example/', 'http://app.example.com/', 'https://user@app.example.com/', '/relative', 'javascript:alert(1)']) {
        const { started } = await h.startAt('oidc', target);
        expect(started.status, target).toBe(400);
        expect(await started.json()).toMatchObject({ error: { code: 'redirect_not_allowed' } });
        expect(started.headers.get('location')).toBeNull();
      }
      expect((await h.startAt('nope')).started.status).toBe(404);
    });

    it('a wrong or replayed state, and a callback from another browser', async () => {
      const h = await harness();
      oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
      const { started, cookie } = await h.startAt('oidc');
      const callback = await h.throughProvider(started.headers.get('location')!);
      const wrong = new URL(callback.url);
      wrong.searchParams.set('state', oauth.generateRandomState());
      expect((await h.deliver(new Request(wrong), cookie)).response.status).toBe(400);
      // No cookie, another browser's cookie: refused, and nothing redirected.
      const stranger = (await h.startAt('oidc')).cookie!;
      for (const other of [undefined, `${cookie!.split('=')[0]}=${stranger.split('=')[1]}`]) {
        const { response, location } = await h.deliver(callback, other);
        expect(response.status).toBe(400);
        expect(location).toBeUndefined();
        expect(await response.json()).toMatchObject({ error: { code: 'invalid_oauth_state' } });
      }
      // Each refusal spent the state: even the right browser cannot use it now (a replay).
      expect((await h.deliver(callback, cookie)).response.status).toBe(400);
      const fresh = await h.signIn('oidc');
      expect(fresh.code).toBeDefined();
      const replay = await h.deliver(fresh.callback, fresh.cookie);
      expect(replay.response.status).toBe(400);
      expect(h.events.filter((event) => event.type === 'auth.federated_login_failed').map((event) => (event as { reason: string }).reason)).toEqual(
        expect.arrayContaining(['unknown_state', 'other_browser']),
      );
    });

    const tampered: [string, (idToken: string, sign: (header: Record<string, unknown>, claims: Record<string, unknown>) => Promise<string>) => Promise<string>][] = [
      ['a wrong nonce', (token, sign) => sign({}, { ...decodeJwt(token), nonce: 'not-the-nonce' })],
      ['a wrong aud', (token, sign) => sign({}, { ...decodeJwt(token), aud: 'another-client' })],
      ['a wrong iss', (token, sign) => sign({}, { ...decodeJwt(token), iss: 'https://issuer.example' })],
      ['an expired ID token', (token, sign) => sign({}, { ...decodeJwt(token), iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 })],
      ['an alg none ID token', async (token) => `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${token.split('.')[1]}.`],
      ['an ID token signed by another key', async (token) => oidc.signWithForeignKey(decodeJwt(token))],
    ];
    it.each(tampered)('%s', async (_name, rewrite) => {
      const h = await harness();
      oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
      oidc.tamperIdToken(rewrite);
      try {
        const { code, error } = await h.signIn('oidc');
        expect(code).toBeUndefined();
        expect(error).toBe('provider_refused');
      } finally {
        oidc.tamperIdToken(undefined);
      }
      const failure = h.events.find((event) => event.type === 'auth.federated_login_failed');
      expect(failure).toMatchObject({ reason: expect.stringMatching(/^id_token/) });
    });

    it('a state past its 10 minutes, and an app code past its 60 seconds', async () => {
      const clock = movableClock();
      const h = await harness(clock);
      oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
      // The ID token is checked at the callback (by the clock too): the code's wait comes after it.
      const signIn = await h.signIn('oidc');
      clock.advance(61);
      expect((await h.redeem(signIn.code, signIn.verifier)).body).toMatchObject({ error: { code: 'invalid_oauth_code' } });
      const { started, cookie } = await h.startAt('oidc');
      const callback = await h.throughProvider(started.headers.get('location')!);
      clock.advance(601);
      const late = await h.deliver(callback, cookie);
      expect(late.response.status).toBe(400);
      expect(late.location).toBeUndefined();
      expect(h.events.filter((event) => event.type === 'auth.federated_login_failed').map((event) => (event as { reason: string }).reason)).toEqual(['expired_code', 'expired_state']);
    });

    it('a replayed app code, and a code without its PKCE verifier or with another', async () => {
      const h = await harness();
      oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
      const first = await h.signIn('oidc');
      expect((await h.redeem(first.code, first.verifier)).status).toBe(200);
      const replay = await h.redeem(first.code, first.verifier);
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({ error: { code: 'invalid_oauth_code' } });
      const second = await h.signIn('oidc');
      const missing = await h.redeem(second.code, undefined);
      expect(missing.body).toMatchObject({ error: { code: 'invalid_oauth_code' } });
      // Spent by the refusal: not even its verifier redeems it now.
      expect((await h.redeem(second.code, second.verifier)).status).toBe(400);
      const third = await h.signIn('oidc');
      expect((await h.redeem(third.code, oauth.generateRandomCodeVerifier())).body).toMatchObject({ error: { code: 'invalid_oauth_code' } });
    });
  });

  it('makes one account of many concurrent first sign-ins of one identity', async () => {
    const h = await harness();
    const email = uniqueEmail();
    const identity = { provider: 'oidc', subject: subject(), email, emailVerified: true, providerMfa: false };
    const results = await Promise.all(Array.from({ length: 12 }, () => resolveIdentity(h.deps, identity)));
    const userIds = new Set(results.map((result) => (result.kind === 'account' ? result.user.userId : 'link')));
    expect(userIds.size).toBe(1);
    expect(userIds.has('link')).toBe(false);
    expect((await h.users.getUserByEmail(email))?.userId).toBe([...userIds][0]);
    expect(h.events.filter((event) => event.type === 'auth.federated_account_created')).toHaveLength(1);
    // Through the provider too: concurrent redemptions of one new identity's codes.
    oidc.signInAs({ sub: subject(), email: uniqueEmail(), emailVerified: true });
    const signIns = [];
    for (let index = 0; index < 4; index++) signIns.push(await h.signIn('oidc'));
    const answers = await Promise.all(signIns.map(({ code, verifier }) => h.redeem(code, verifier)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map(userOf)).size).toBe(1);
  });
});
