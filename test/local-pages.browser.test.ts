/**
 * `npm start`'s pages for the links it mails, in a real browser: Debian's Chromium, headless,
 * driven by playwright-core. A developer's whole flow with no app of their own: register (email
 * verification on), open the mailed link and confirm, ask for a reset on the sign-in page, open
 * that link and choose a new password, sign in with it. The links are read where a developer
 * reads them, on the server's console, and must point at the server's real port. And a device
 * approval: the sign-in page, held by an account-wide ceiling, asks for one by mail; the link does
 * nothing in another browser, and in the browser that asked it makes a known device that signs in.
 * And the "this wasn't me" link of a factor's mail: undone on its page, every session ended,
 * the password refused until the reset link it mails. And a change of email: asked for on the
 * account page, confirmed on the new address's link page, undone on the old address's.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { base32Bytes, totpCode } from './support/authenticator-app.js';
import { chromiumMissing, launchHeadlessChromium } from './support/headless-chromium.js';
import { killServers, startServer, type RunningServer } from './support/local-server-process.js';

const PASSWORD = 'a first passphrase for the pages';
const NEW_PASSWORD = 'the passphrase chosen in the browser';

describe.skipIf(chromiumMissing)('npm start\'s pages for the mailed links, in headless Chromium', () => {
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

  /** The newest link of this kind on the console: `... mail written to <file>; link: <url>`. */
  const mailedLink = (kind: 'email verification' | 'password reset' | 'device approval' | 'factor added' | 'email change' | 'email changed'): string => {
    const links = [...server.output().matchAll(new RegExp(`${kind} mail written to \\S+; link: (\\S+)`, 'g'))];
    expect(links.length, `a ${kind} mail on the console`).toBeGreaterThan(0);
    return links.at(-1)![1]!;
  };
  const status = (page: Page) => page.locator('#status');
  /** What the page's status line comes to say; a generous bound, since a reset hashes on a busy machine (no speed is measured). */
  const statusOf = (page: Page) => expect.poll(() => status(page).textContent(), { timeout: 20_000 });

  it('verifies the address, resets the password and signs in, all through the pages', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-pages-'));
    dirs.push(dataDir);
    // PORT=0 (the helper's): the links must carry the port the OS picked, not 3000.
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox', PASSLANE_EMAIL_VERIFICATION: 'true' });
    const port = new URL(server.url).port;
    const email = `pages-${randomUUID()}@example.test`;
    const registered = await fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(registered.status).toBe(202);

    const failures: string[] = [];
    /** A new tab, as a click on a mail's link opens. */
    const open = async (url: string) => {
      const tab = await context.newPage();
      tab.on('pageerror', (error) => failures.push(error.message));
      tab.on('console', (message) => {
        // Chrome reports every 4xx answer to fetch; the pages expect the API's 400 and 401.
        if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 40[01] /.test(message.text())) failures.push(message.text());
      });
      await tab.goto(url);
      return tab;
    };

    // Verification: the link opens the page, which takes the token out of the address bar.
    const verifyLink = mailedLink('email verification');
    expect(verifyLink).toMatch(new RegExp(`^http://localhost:${port}/verify-email#token=`));
    const verify = await open(verifyLink);
    expect(verify.url()).toBe(`http://localhost:${port}/verify-email`);
    await verify.getByRole('button', { name: 'Confirm this address' }).click();
    await statusOf(verify).toBe('Your email address is confirmed. Sign in');
    // The same link again, in the same tab (the page reloads for a new fragment): used.
    await verify.goto(verifyLink);
    await verify.waitForURL(`http://localhost:${port}/verify-email`);
    await verify.getByRole('button', { name: 'Confirm this address' }).click();
    await statusOf(verify).toMatch(/^This link is no longer valid/);

    // A reset asked for on the sign-in page.
    const page = await open(`http://localhost:${port}/sign-in`);
    await page.locator('#forgot input[name=email]').fill(email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await statusOf(page).toMatch(/^If an account has this address, a reset link is on its way/);

    const resetLink = mailedLink('password reset');
    expect(resetLink).toMatch(new RegExp(`^http://localhost:${port}/reset-password#token=`));
    await page.goto(resetLink);
    expect(page.url()).toBe(`http://localhost:${port}/reset-password`);
    await page.locator('input[name=password]').fill(NEW_PASSWORD);
    await page.locator('input[name=repeat]').fill(`${NEW_PASSWORD} typo`);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await statusOf(page).toBe('The two passwords differ.');
    await page.locator('input[name=repeat]').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await statusOf(page).toBe('Your password is changed, and every session signed in before has ended. Sign in');
    await page.getByRole('link', { name: 'Sign in' }).click();

    // The old password is refused with the API's message; the new one signs in.
    await page.waitForURL(`http://localhost:${port}/sign-in`);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toBe('email or password is incorrect');
    await page.locator('#sign-in input[name=password]').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toMatch(/^Signed in: the API issued an access token for \d+ seconds\.$/);

    // A reset page opened without its token says what to do instead of showing a form.
    await page.goto(`http://localhost:${port}/reset-password`);
    await statusOf(page).toMatch(/^This page takes the link from the mail/);
    expect(await page.locator('#reset').isHidden()).toBe(true);

    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    // The console shows the links (a developer's machine) but never the address or a password.
    for (const secret of [email, PASSWORD, NEW_PASSWORD]) expect(server.output()).not.toContain(secret);
    expect(server.output()).toMatch(/ GET \/reset-password 200 /);
    expect(server.output()).toMatch(/ POST \/password\/reset\/confirm 204 /);
  });

  it('approves this browser by mail when a stranger has the address over its ceiling, and signs in', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-pages-'));
    dirs.push(dataDir);
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox', PASSLANE_LOGIN_ACCOUNT_FAILURE_CEILING: '3' });
    const port = new URL(server.url).port;
    const email = `approval-${randomUUID()}@example.test`;
    const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/register', { email, password: PASSWORD })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await post('/login', { email, password: 'a stranger guessing' })).status).toBe(401);

    const failures: string[] = [];
    const open = async (browser: BrowserContext, url: string) => {
      const tab = await browser.newPage();
      tab.on('pageerror', (error) => failures.push(error.message));
      tab.on('console', (message) => {
        // Chrome reports every 4xx answer to fetch; here the API's 400 and 429 are expected.
        if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of (400|429) /.test(message.text())) failures.push(message.text());
      });
      await tab.goto(url);
      return tab;
    };

    // The right password on this (new) browser is held, and the page offers the approval.
    const page = await open(context, `http://localhost:${port}/sign-in`);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toBe('too many attempts; try again later');
    await page.getByRole('button', { name: 'Approve this device by mail' }).click();
    await statusOf(page).toMatch(/^If an account has this address, an approval link is on its way/);
    const link = mailedLink('device approval');
    expect(link).toMatch(new RegExp(`^http://localhost:${port}/approve-device#token=`));

    // The link opened in another browser (the owner's laptop, a mail scanner) does nothing there.
    const elsewhere = await launchHeadlessChromium(dirs);
    try {
      const there = await open(elsewhere, link);
      expect(there.url()).toBe(`http://localhost:${port}/approve-device`);
      await there.getByRole('button', { name: 'Approve this device' }).click();
      await statusOf(there).toMatch(/^This link does not work here/);
    } finally {
      await elsewhere.close();
    }

    // In the browser that asked, it approves; the password then signs in past the ceiling.
    await page.goto(link);
    await page.getByRole('button', { name: 'Approve this device' }).click();
    await statusOf(page).toBe('This browser is approved: sign in with your password. Sign in');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`http://localhost:${port}/sign-in`);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toMatch(/^Signed in: the API issued an access token for \d+ seconds\.$/);
    // The link works once.
    await page.goto(link);
    await page.getByRole('button', { name: 'Approve this device' }).click();
    await statusOf(page).toMatch(/^This link does not work here/);

    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    for (const secret of [email, PASSWORD]) expect(server.output()).not.toContain(secret);
    expect(server.output()).toMatch(/ POST \/devices\/approval\/confirm 200 /);
  });

  it("undoes a factor from its mail's link: gone, every session ended, the password only after the mailed reset", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-pages-'));
    dirs.push(dataDir);
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox' });
    const port = new URL(server.url).port;
    const email = `undo-${randomUUID()}@example.test`;
    const api = async (path: string, body?: unknown, accessToken?: string) => {
      const headers: Record<string, string> = { ...(body !== undefined && { 'content-type': 'application/json' }), ...(accessToken !== undefined && { authorization: `Bearer ${accessToken}` }) };
      const response = await fetch(`${server.url}${path}`, { method: body === undefined && path === '/sessions' ? 'GET' : 'POST', headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
      return { status: response.status, body: (await response.text().then((text) => (text === '' ? {} : JSON.parse(text)))) as Record<string, unknown> };
    };
    expect((await api('/register', { email, password: PASSWORD })).status).toBe(201);
    // Someone with the password turns TOTP on: the account's first factor.
    const session = await api('/login', { email, password: PASSWORD });
    const accessToken = String(session.body.accessToken);
    const enrolled = await api('/mfa/totp', {}, accessToken);
    const code = totpCode(base32Bytes(String(enrolled.body.secret)), Date.now());
    expect(await api('/mfa/totp/confirm', { code }, accessToken)).toMatchObject({ status: 200, body: { sessionsEnded: 0 } });

    const undoLink = mailedLink('factor added');
    expect(undoLink).toMatch(new RegExp(`^http://localhost:${port}/undo-factor#token=`));
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(undoLink);
    expect(page.url()).toBe(`http://localhost:${port}/undo-factor`);
    await page.getByRole('button', { name: 'Remove it and sign everything out' }).click();
    await statusOf(page).toMatch(/^Removed\. Every device is signed out and your password no longer works/);
    // Once: the link again says so.
    await page.goto(undoLink);
    await page.waitForURL(`http://localhost:${port}/undo-factor`);
    await page.getByRole('button', { name: 'Remove it and sign everything out' }).click();
    await statusOf(page).toMatch(/^This link is no longer valid/);

    // The session that added it is over, and the password it knew signs nobody in.
    expect((await api('/sessions', undefined, accessToken)).status).toBe(401);
    expect(await api('/login', { email, password: PASSWORD })).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    // The mailed reset link sets a new one; with the factor gone, the password alone signs in.
    await page.goto(mailedLink('password reset'));
    await page.locator('input[name=password]').fill(NEW_PASSWORD);
    await page.locator('input[name=repeat]').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await statusOf(page).toMatch(/^Your password is changed/);
    expect((await api('/login', { email, password: NEW_PASSWORD })).status).toBe(200);

    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    expect(server.output()).toMatch(/ POST \/mfa\/undo 200 /);
    for (const secret of [email, PASSWORD, NEW_PASSWORD]) expect(server.output()).not.toContain(secret);
  });
  it('deletes the account from its page, after a confirm step: the session ends, the address registers again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-pages-'));
    dirs.push(dataDir);
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox' });
    const port = new URL(server.url).port;
    const email = `delete-${randomUUID()}@example.test`;
    const register = () => fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect((await register()).status).toBe(201);

    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`http://localhost:${port}/sign-in`);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toMatch(/^Signed in/);
    await page.getByRole('link', { name: 'Manage your passkeys' }).click();
    await page.waitForURL(`http://localhost:${port}/account/passkeys`);
    const accessToken = await page.evaluate(() => sessionStorage.getItem('passlane.accessToken'));

    // The first button only asks; keeping the account leaves it as it was.
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    expect(await page.locator('#confirm-delete').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect(await page.locator('#confirm-delete').isHidden()).toBe(true);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    await page.locator('#confirm-delete input[name=confirm]').fill('delete');
    await page.getByRole('button', { name: 'Delete it for good' }).click();
    await statusOf(page).toBe('Type DELETE to confirm, or keep the account.');
    expect((await fetch(`${server.url}/sessions`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);

    await page.locator('#confirm-delete input[name=confirm]').fill('DELETE');
    await page.getByRole('button', { name: 'Delete it for good' }).click();
    await statusOf(page).toBe('Your account is deleted. A mail confirms it.');
    expect(await page.locator('#account').isHidden()).toBe(true);
    expect((await fetch(`${server.url}/sessions`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    expect(server.output()).toMatch(/account change mail written to /);
    expect((await register()).status).toBe(201);

    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    expect(server.output()).toMatch(/ DELETE \/account 204 /);
    for (const secret of [email, PASSWORD]) expect(server.output()).not.toContain(secret);
  });

  it('changes the email on the account page, confirms it from the new address\'s link, and undoes it from the old one\'s', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'passlane-pages-'));
    dirs.push(dataDir);
    server = await startServer(dataDir, { PASSLANE_APP_URL: '', PASSLANE_MAIL_TRANSPORT: 'outbox' });
    const port = new URL(server.url).port;
    const email = `change-${randomUUID()}@example.test`;
    const newEmail = `moved-${randomUUID()}@example.test`;
    const login = async (address: string, password = PASSWORD) =>
      (await fetch(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: address, password }) })).status;
    const registered = await fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(registered.status).toBe(201);

    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`http://localhost:${port}/sign-in`);
    await page.locator('#sign-in input[name=email]').fill(email);
    await page.locator('#sign-in input[name=password]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await statusOf(page).toMatch(/^Signed in/);
    await page.goto(`http://localhost:${port}/account/passkeys`);
    await page.locator('#change-email input[name=newEmail]').fill(newEmail);
    await page.getByRole('button', { name: 'Change my email address' }).click();
    await statusOf(page).toMatch(/^A link is on its way to the new address/);
    // Nothing changed yet.
    expect(await login(email)).toBe(200);

    const link = mailedLink('email change');
    expect(link).toMatch(new RegExp(`^http://localhost:${port}/confirm-email-change#token=`));
    await page.goto(link);
    expect(page.url()).toBe(`http://localhost:${port}/confirm-email-change`);
    await page.getByRole('button', { name: 'Use this address' }).click();
    await statusOf(page).toBe('Your account now signs in with this address. Every device was signed out. Sign in');
    expect(await login(newEmail)).toBe(200);
    expect(await login(email)).toBe(401);
    // The link works once.
    await page.goto(link);
    await page.waitForURL(`http://localhost:${port}/confirm-email-change`);
    await page.getByRole('button', { name: 'Use this address' }).click();
    await statusOf(page).toMatch(/^This link is no longer valid/);

    const undo = mailedLink('email changed');
    expect(undo).toMatch(new RegExp(`^http://localhost:${port}/undo-email-change#token=`));
    await page.goto(undo);
    await page.getByRole('button', { name: 'Put my address back and sign everything out' }).click();
    await statusOf(page).toMatch(/^Your address is back\. Every device is signed out and your password no longer works/);
    expect(await login(email)).toBe(401);
    expect(await login(newEmail)).toBe(401);
    // The reset link the undo mailed to the old address sets a password that signs in there.
    await page.goto(mailedLink('password reset'));
    await page.locator('input[name=password]').fill(NEW_PASSWORD);
    await page.locator('input[name=repeat]').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await statusOf(page).toMatch(/^Your password is changed/);
    expect(await login(email, NEW_PASSWORD)).toBe(200);

    expect(failures).toEqual([]);
    await Promise.all(context.pages().map((tab) => tab.close()));
    expect(await server.interrupt()).toBe(0);
    expect(server.output()).toMatch(/ POST \/email\/change\/confirm 204 /);
    for (const secret of [email, newEmail, PASSWORD, NEW_PASSWORD]) expect(server.output()).not.toContain(secret);
  });
});
