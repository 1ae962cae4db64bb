/**
 * Sign-in with a provider on `npm start`'s /sign-in page, in headless Chromium, against a real
 * OpenID provider (panva's oidc-provider on a loopback port: test/support/oidc-provider.ts). The
 * page is the app: its "Continue with" button makes the PKCE pair and goes to the start; the
 * browser goes through the provider's pages and back through the callback to the page, which
 * redeems the app code. A new user is signed in; a user whose email has an account links the
 * provider after signing in with the password, then signs in either way; an account with a
 * second factor (TOTP) is asked for it after the provider.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { freePort } from './support/dynamodb-servers.js';
import { chromiumMissing, launchHeadlessChromium } from './support/headless-chromium.js';
import { killServers, startServer, type RunningServer } from './support/local-server-process.js';
import { startOidcProvider, type TestOidcProvider } from './support/oidc-provider.js';

const PASSWORD = 'a passphrase for the linked account';

describe.skipIf(chromiumMissing)('npm start\'s sign-in page with a provider, in headless Chromium', () => {
  const dirs: string[] = [];
  let context: BrowserContext;
  let server: RunningServer;
  let provider: TestOidcProvider;
  let origin: string;
  const failures: string[] = [];

  beforeAll(async () => {
    // The callback's URL is registered with the provider before the server starts: its port is chosen here.
    const port = await freePort();
    origin = `http://localhost:${port}`;
    provider = await startOidcProvider({ redirectUris: [`${origin}/oauth/idp/callback`] });
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-federation-pages-'));
    dirs.push(dataDir);
    const providers = { idp: { kind: 'oidc', issuer: provider.issuer, clientId: provider.clientId, scopes: ['openid', 'email'], redirectOrigins: [origin] } };
    server = await startServer(dataDir, {
      PORT: String(port),
      PASSLANE_APP_URL: '',
      PASSLANE_MAIL_TRANSPORT: 'outbox',
      PASSLANE_OAUTH_PROVIDERS: JSON.stringify(providers),
      PASSLANE_OAUTH_IDP_CLIENT_SECRET: provider.clientSecret,
      PASSLANE_PUBLIC_URL: origin,
    });
    context = await launchHeadlessChromium(dirs);
  }, 60_000);
  afterEach(() => expect(failures.splice(0)).toEqual([]));
  afterAll(async () => {
    await context?.close();
    killServers();
    await provider?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const api = async (method: string, path: string, body?: unknown, accessToken?: string) => {
    const headers: Record<string, string> = { ...(body !== undefined && { 'content-type': 'application/json' }), ...(accessToken !== undefined && { authorization: `Bearer ${accessToken}` }) };
    const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.text().then((text) => (text === '' ? {} : JSON.parse(text)))) as Record<string, unknown> };
  };
  const statusOf = (page: Page) => expect.poll(() => page.locator('#status').textContent(), { timeout: 20_000 });
  /** A new tab on the sign-in page (its own sessionStorage), after the provider forgot who signed in there. */
  const signInPage = async () => {
    await context.clearCookies();
    const tab = await context.newPage();
    tab.on('pageerror', (error) => failures.push(error.message));
    tab.on('console', (message) => {
      // Chrome reports every 4xx answer to fetch; the page expects the API's 401 (mfa_required) and 409 (link required).
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 40[19] /.test(message.text())) failures.push(message.text());
    });
    await tab.goto(`${origin}/sign-in`);
    return tab;
  };
  /** Through the provider and back: the page ends on /sign-in with no code in its address. */
  const continueWithProvider = async (page: Page) => {
    await page.getByRole('button', { name: 'Continue with idp' }).click();
    await page.waitForURL(`${origin}/sign-in`, { timeout: 20_000 });
  };
  const accessTokenOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('passlane.accessToken'));

  it('signs a new user in: the page, the provider\'s pages, the callback, the page again with passlane\'s tokens', async () => {
    const email = `newcomer-${randomUUID()}@example.test`;
    provider.signInAs({ sub: randomUUID(), email, emailVerified: true });
    const page = await signInPage();
    await continueWithProvider(page);
    await statusOf(page).toMatch(/^Signed in: the API issued an access token for \d+ seconds\.$/);
    const token = await accessTokenOf(page);
    const identities = await api('GET', '/identities', undefined, token!);
    expect(identities).toMatchObject({ status: 200, body: { identities: [{ provider: 'idp' }] } });
    // The app code left no trace in the address bar, and the verifier is spent.
    expect(page.url()).toBe(`${origin}/sign-in`);
    expect(await page.evaluate(() => sessionStorage.getItem('passlane.oauthVerifier'))).toBeNull();
    expect(server.output()).toMatch(/ GET \/oauth\/:provider\/callback 302 /);
    expect(server.output()).toMatch(/ POST \/oauth\/token 200 /);
    expect(server.output()).not.toContain(email);
  });

  it('links the provider to an existing account after its password login, then signs in either way', async () => {
    const email = `existing-${randomUUID()}@example.test`;
    expect((await api('POST', '/register', { email, password: PASSWORD })).status).toBe(201);
    const account = { sub: randomUUID(), email, emailVerified: true };
    provider.signInAs(account);
    const page = await signInPage();
    await continueWithProvider(page);
    await statusOf(page).toMatch(/./);
    expect(await page.locator('#link-pending').isVisible()).toBe(true);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await statusOf(page).toMatch(/^Signed in: .* idp is now linked to this account: it signs you in too\.$/);

    // Another tab, the provider alone: the same account.
    provider.signInAs(account);
    const again = await signInPage();
    await continueWithProvider(again);
    await statusOf(again).toMatch(/^Signed in: the API issued an access token/);
    const sub = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string;
    const viaPassword = await api('POST', '/login', { email, password: PASSWORD });
    expect(sub((await accessTokenOf(again))!)).toBe(sub(viaPassword.body.accessToken as string));
  });

  it('asks an account with a second factor for it after the provider', async () => {
    const account = { sub: randomUUID(), email: `factor-${randomUUID()}@example.test`, emailVerified: true };
    provider.signInAs(account);
    const first = await signInPage();
    await continueWithProvider(first);
    await statusOf(first).toMatch(/^Signed in:/);
    // TOTP turned on with that sign-in's token, as an app would.
    const token = (await accessTokenOf(first))!;
    const enrolled = await api('POST', '/mfa/totp', {}, token);
    const secret = base32Bytes(String(enrolled.body.secret));
    expect((await api('POST', '/mfa/totp/confirm', { code: totpCode(secret, Date.now()) }, token)).status).toBe(200);

    provider.signInAs(account);
    const page = await signInPage();
    await continueWithProvider(page);
    await statusOf(page).toBe('The provider signed you in; a second factor finishes the sign-in.');
    expect(await page.locator('#mfa-code').isVisible()).toBe(true);
    await page.locator('#mfa-code select').selectOption('totp');
    await page.locator('#mfa-code input[name=code]').fill(totpCode(secret, Date.now(), 1));
    await page.getByRole('button', { name: 'Finish signing in' }).click();
    await statusOf(page).toMatch(/^Signed in: the API issued an access token for \d+ seconds\.$/);
  });
});
