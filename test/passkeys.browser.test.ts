/**
 * Passkeys on `npm start`'s pages in a real browser: Debian's Chromium, headless, driven by
 * playwright-core, with a CDP virtual authenticator (ctap2, internal transport, resident keys,
 * user verification) in place of a phone or a security key. A user signs in with the password,
 * adds a passkey on /account/passkeys, signs out, signs in with the passkey and no password, then
 * with the password and the passkey (or a recovery code) as the second factor, renames and
 * removes it, and the removed passkey no longer signs in. The page is opened at
 * http://localhost:<port>: WebAuthn refuses an IP address as the relying-party ID.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchHeadlessChromium } from './support/headless-chromium.js';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { killServers, startServer, type RunningServer } from './support/local-server-process.js';

const PASSWORD = 'a passphrase before the passkey';
const TOKEN_KEY = 'passlane.accessToken';
const SIGNED_IN = /^Signed in: the API issued an access token for \d+ seconds\.$/;
const NO_PASSKEY = 'No passkey was used: the prompt was cancelled or timed out, or this device has no passkey for this site.';

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  signCount: number;
}

/** A platform authenticator that holds discoverable credentials and verifies its user, as a phone or a laptop's does. */
async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<{ credentials(): Promise<VirtualCredential[]> }> {
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  // Device-bound (no backup eligibility) said outright, not left to Chromium's default: the amr `hwk` below depends on it.
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      defaultBackupEligibility: false,
      defaultBackupState: false,
    },
  });
  return { credentials: async () => ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] }).credentials };
}

/** The access token's `amr` (RFC 8176): how the login was made. */
const amrOf = (accessToken: string) => (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { amr?: string[] }).amr;

/** CDP names a credential in base64; WebAuthn and the API in base64url. */
const base64url = (base64: string) => Buffer.from(base64, 'base64').toString('base64url');

describe.skipIf(chromiumMissing)('passkeys on npm start\'s pages, in headless Chromium with a virtual authenticator', () => {
  const dirs: string[] = [];
  let context: BrowserContext;
  let server: RunningServer;

  beforeAll(async () => {
    context = await launchHeadlessChromium(dirs);
  });
  afterEach(killServers);
  afterAll(async () => {
    await context?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** What the page's status line comes to say; a generous bound, since a login hashes on a busy machine (no speed is measured). */
  const statusOf = (page: Page) => expect.poll(() => page.locator('#status').textContent(), { timeout: 20_000 });
  const storedToken = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY);
  const failures: string[] = [];
  afterEach(() => void failures.splice(0));

  /** `npm start` (PORT=0) with one account registered, and a tab on its sign-in page at http://localhost:<port>. */
  const started = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-passkeys-'));
    dirs.push(dataDir);
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox' });
    const origin = `http://localhost:${new URL(server.url).port}`;
    const email = `passkeys-${randomUUID()}@example.test`;
    const registered = await fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(registered.status).toBe(201);
    const open = async (url: string) => {
      const tab = await context.newPage();
      tab.on('pageerror', (error) => failures.push(error.message));
      tab.on('console', (message) => {
        // Chrome reports every 4xx answer to fetch; the pages expect the API's 401s.
        if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 401 /.test(message.text())) failures.push(message.text());
      });
      await tab.goto(url);
      return tab;
    };
    const page = await open(`${origin}/sign-in`);
    const signInWithPassword = async () => {
      await page.goto(`${origin}/sign-in`);
      await page.locator('#sign-in input[name=email]').fill(email);
      await page.locator('#sign-in input[name=password]').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    };
    return { origin, email, open, page, signInWithPassword };
  };
  /** The pages closed and the server stopped: its console never shows the address, the password or another secret. */
  const finished = async (secrets: string[]) => {
    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    for (const secret of [PASSWORD, ...secrets]) expect(server.output()).not.toContain(secret);
  };
  /** A JSON call as a client makes it. */
  const call = async (method: string, path: string, accessToken: string, body?: unknown) => {
    const answer = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    return { status: answer.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  };

  it('adds a passkey, signs in with it alone and as a second factor, renames and removes it', async () => {
    const { origin, email, open, page, signInWithPassword } = await started();
    const authenticator = await virtualAuthenticator(context, page);
    /** GET /passkeys as the API answers it to this access token. */
    const listed = async (accessToken: string) => {
      const answer = await call('GET', '/passkeys', accessToken);
      return { status: answer.status, passkeys: answer.body?.passkeys as Array<{ id: string; name: string; lastUsedAt: string | null }> | undefined };
    };

    // The password alone signs in while the account has no second factor; the token stays in this tab's sessionStorage.
    await signInWithPassword();
    await statusOf(page).toMatch(SIGNED_IN);
    const passwordToken = await storedToken(page);
    expect(passwordToken).toEqual(expect.any(String));
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // A passkey added on the account page: the authenticator now holds one discoverable credential for localhost.
    await page.getByRole('link', { name: 'Manage your passkeys' }).click();
    await page.waitForURL(`${origin}/account/passkeys`);
    await expect.poll(() => page.locator('#no-passkeys').isVisible()).toBe(true);
    await page.locator('#add-passkey input[name=name]').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await statusOf(page).toBe('Passkey added.');
    const credentials = await authenticator.credentials();
    expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);
    const credentialId = base64url(credentials[0]!.credentialId);
    expect((await listed(passwordToken!)).passkeys).toEqual([expect.objectContaining({ id: credentialId, name: 'Test laptop', lastUsedAt: null })]);
    await expect.poll(() => page.locator('#passkeys li').count()).toBe(1);
    expect(await page.locator('#passkeys li input[name=name]').inputValue()).toBe('Test laptop');
    expect(await page.locator('#passkeys li small').textContent()).toMatch(/not used yet, kept on this one authenticator\.$/);
    expect(await page.locator('#no-passkeys').isHidden()).toBe(true);
    // Its first factor: the recovery codes are shown once.
    const recoveryCodes = await page.locator('#recovery-codes li').allTextContents();
    expect(recoveryCodes).toHaveLength(10);

    // Signing out ends the session and forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await statusOf(page).toBe('Signed out. Sign in');
    expect(await storedToken(page)).toBeNull();
    expect((await listed(passwordToken!)).status).toBe(401);
    // The account page without a sign-in says so instead of showing the forms.
    await page.reload();
    await statusOf(page).toBe('Sign in first: this page uses the access token of a sign-in in this tab. Sign in');
    expect(await page.locator('#account').isHidden()).toBe(true);

    // The passkey alone signs in: no email, no password.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/sign-in`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await statusOf(page).toMatch(SIGNED_IN);
    expect(await page.locator('#sign-in input[name=password]').inputValue()).toBe('');
    const passkeyToken = await storedToken(page);
    // A device-bound credential (Chromium's virtual one is not backup-eligible) with user verification.
    expect(amrOf(passkeyToken!)).toEqual(['hwk', 'user', 'mfa']);
    expect((await listed(passkeyToken!)).passkeys).toEqual([expect.objectContaining({ id: credentialId, lastUsedAt: expect.any(String) })]);
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);

    // The password now asks for a second factor, the passkey or a recovery code; a recovery code finishes it.
    await signInWithPassword();
    await statusOf(page).toBe('The password is right; a second factor finishes the sign-in.');
    expect(await page.getByRole('button', { name: 'Use your passkey' }).isVisible()).toBe(true);
    expect(await page.locator('#mfa-code select option').allTextContents()).toContain('Recovery code');
    expect(await storedToken(page)).toBe(passkeyToken);
    await page.locator('#mfa-code select').selectOption('recovery_code');
    await page.locator('#mfa-code input[name=code]').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Finish signing in' }).click();
    await statusOf(page).toMatch(SIGNED_IN);

    // Password, then the passkey as the second factor.
    await signInWithPassword();
    await statusOf(page).toBe('The password is right; a second factor finishes the sign-in.');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await statusOf(page).toMatch(SIGNED_IN);
    const mfaToken = await storedToken(page);
    expect(amrOf(mfaToken!)).toEqual(['pwd', 'hwk', 'mfa']);

    // Renamed and removed on the account page (removal needs this fresh login with a second factor).
    await page.getByRole('link', { name: 'Manage your passkeys' }).click();
    await page.waitForURL(`${origin}/account/passkeys`);
    await expect.poll(() => page.locator('#passkeys li').count()).toBe(1);
    expect(await page.locator('#passkeys li small').textContent()).toContain('last used');
    await page.locator('#passkeys li input[name=name]').fill('Renamed key');
    await page.getByRole('button', { name: 'Rename' }).click();
    await statusOf(page).toBe('Renamed.');
    expect(await page.locator('#passkeys li input[name=name]').inputValue()).toBe('Renamed key');
    expect((await listed(mfaToken!)).passkeys).toEqual([expect.objectContaining({ id: credentialId, name: 'Renamed key' })]);
    await page.getByRole('button', { name: 'Remove' }).click();
    await statusOf(page).toBe('Removed. The authenticator may still list it: the server no longer accepts it.');
    expect(await page.locator('#passkeys li').count()).toBe(0);
    expect(await page.locator('#no-passkeys').isVisible()).toBe(true);
    expect((await listed(mfaToken!)).passkeys).toEqual([]);

    // The authenticator still holds the credential, and the server refuses it.
    expect(await authenticator.credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await statusOf(page).toBe('Signed out. Sign in');
    await page.goto(`${origin}/sign-in`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await statusOf(page).toBe('the passkey could not be verified');
    expect(await page.locator('#status').getAttribute('data-kind')).toBe('error');
    expect(await storedToken(page)).toBeNull();

    // Another device, whose authenticator holds no passkey for this site: the page says so.
    const other = await open(`${origin}/sign-in`);
    const empty = await virtualAuthenticator(context, other);
    await other.getByRole('button', { name: 'Use a passkey' }).click();
    await statusOf(other).toBe(NO_PASSKEY);
    expect(await empty.credentials()).toEqual([]);

    await finished([email, ...recoveryCodes, passwordToken!, passkeyToken!, mfaToken!]);
    expect(server.output()).toMatch(/ POST \/passkey\/login 200 /);
    expect(server.output()).toMatch(/ POST \/passkey\/login 401 /);
  });

  it('asks an account with an authenticator app and no passkey for a code, and takes a recovery code instead', async () => {
    const { email, page, signInWithPassword } = await started();
    await signInWithPassword();
    await statusOf(page).toMatch(SIGNED_IN);
    const accessToken = (await storedToken(page))!;
    const enrolled = await call('POST', '/mfa/totp', accessToken);
    expect(enrolled.status).toBe(200);
    const secret = base32Bytes(String(enrolled.body!.secret));
    const confirmed = await call('POST', '/mfa/totp/confirm', accessToken, { code: totpCode(secret, Date.now()) });
    expect(confirmed.status).toBe(200);
    const recoveryCodes = confirmed.body!.recoveryCodes as string[];

    // No passkey button: the methods are the app's code and a recovery code.
    await signInWithPassword();
    await statusOf(page).toBe('The password is right; a second factor finishes the sign-in.');
    expect(await page.locator('#mfa-passkey').isHidden()).toBe(true);
    expect(await page.locator('#passkey').isHidden()).toBe(true);
    expect(await page.locator('#mfa-code select option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual([
      'totp',
      'recovery_code',
    ]);
    // A wrong code is refused with the API's words, and the step stays for another try.
    const near = [-1, 0, 1].map((steps) => totpCode(secret, Date.now(), steps));
    const wrong = ['000000', '111111', '222222', '333333'].find((code) => !near.includes(code))!;
    await page.locator('#mfa-code input[name=code]').fill(wrong);
    await page.getByRole('button', { name: 'Finish signing in' }).click();
    await statusOf(page).toBe('the code is wrong or was already used');
    expect(await page.locator('#mfa-code').isVisible()).toBe(true);
    // The next step's code: the one confirmed is spent, and the server takes one step either side.
    await page.locator('#mfa-code input[name=code]').fill(totpCode(secret, Date.now(), 1));
    await page.getByRole('button', { name: 'Finish signing in' }).click();
    await statusOf(page).toMatch(SIGNED_IN);
    expect(await storedToken(page)).not.toBe(accessToken);

    // A recovery code chosen in the list.
    await signInWithPassword();
    await statusOf(page).toBe('The password is right; a second factor finishes the sign-in.');
    await page.locator('#mfa-code select').selectOption('recovery_code');
    await page.locator('#mfa-code input[name=code]').fill(recoveryCodes[3]!);
    await page.getByRole('button', { name: 'Finish signing in' }).click();
    await statusOf(page).toMatch(SIGNED_IN);

    await finished([email, String(enrolled.body!.secret), ...recoveryCodes]);
    expect(server.output()).toMatch(/ POST \/login\/mfa 401 /);
    expect(server.output()).toMatch(/ POST \/login\/mfa 200 /);
  });
});
