/**
 * Password reset and email verification (issue: one-time tokens, nothing enumerable), through the
 * use-cases against both real DynamoDB servers, with a clock the test moves. The mail channel is
 * captured in memory here; the real senders (SES through the SDK, the outbox) have their own tests.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKey } from '../packages/server/src/storage/one-time-token-store.js';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { confirmPasswordReset } from '../packages/server/src/features/recovery/confirm-password-reset.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import {
  AccountExistsConflictError,
  EmailNotVerifiedError,
  InvalidCredentialsError,
  InvalidGrantError,
  InvalidOneTimeTokenError,
  InvalidRequestError,
  PasswordRejectedError,
  RateLimitedError,
  UnauthenticatedError,
} from '../packages/server/src/accounts/errors.js';
import { createFailureTiming } from '../packages/server/src/accounts/failure-timing.js';
import { refreshSession } from '../packages/server/src/features/sessions/refresh-session.js';
import { register } from '../packages/server/src/features/register/register.js';
import { requestPasswordReset } from '../packages/server/src/features/recovery/request-password-reset.js';
import { resendVerification, verifyEmail } from '../packages/server/src/features/recovery/verify-email.js';
import { changePasswordWithToken, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { movableClock, failureOf } from './support/clock.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';

const signIn = (deps: AppDependencies, email: string, password: string) => loginSession(deps, { email, password, sourceIp: '198.51.100.7' });

/** Full-width forms of ASCII (U+FF01..U+FF5E), which NFKC maps back. */
const fullWidth = (text: string) => text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));

/**
 * 15 spellings of `local@example.com` that all deliver to its mailbox: invisible code points
 * (soft hyphen, zero-width space, joiners), full-width letters, dots and at sign, ideographic
 * full stops, upper case. Before canonical keys, most of them were accounts of their own.
 */
function lookAlikes(local: string): string[] {
  return [
    `${local}@exa\u00admple.com`,
    `${local}@exa\u200bmple.com`,
    `${local}@exa\u200dmple.com`,
    `${local}@exa\u200cmple.com`,
    `${local}@\u200bexample.com`,
    `${local}\u00ad@example.com`,
    `${local}@${fullWidth('example')}.com`,
    `${local}@example.${fullWidth('com')}`,
    `${local}@${fullWidth('e')}xample.com`,
    `${local}@example\uff0ecom`,
    `${local}@example\u3002com`,
    `${local}@example\uff61com`,
    `${local}\uff20example.com`,
    `${fullWidth(local)}@example.com`,
    `${local.toUpperCase()}@EXAMPLE.COM`,
  ];
}

describe.each(dynamoDbServers)('password reset on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function withAccount(overrides: Partial<AppDependencies> = {}) {
    const clock = movableClock();
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now, ...overrides });
    const email = uniqueEmail();
    await register(fixture.deps, { email, password: PASSWORD });
    const reset = async () => {
      await requestPasswordReset(fixture.deps, { email, sourceIp: '198.51.100.7' });
      return fixture.mailbox.last('password_reset')!.token;
    };
    return { ...fixture, clock, email, reset };
  }

  it('answers alike for unknown and known emails, and mails only the account owner', async () => {
    const { deps, email, mailbox, reset, dispose } = await withAccount();
    const unknown = await requestPasswordReset(deps, { email: uniqueEmail() });
    const known = await requestPasswordReset(deps, { email });
    expect(known).toEqual(unknown);
    expect(mailbox.sent.map((m) => [m.kind, m.to])).toEqual([['password_reset', email]]);
    expect(mailbox.sent[0]!.expiresInSeconds).toBe(3600);
    expect(await reset()).toMatch(/^[0-9a-f]{16}\.[\w-]{43}$/);
    dispose();
  });

  it('pads every answer to the slowest seen, so the mail round trip does not show', async () => {
    let clockMs = 0;
    const paddings: number[] = [];
    const replyTiming = createFailureTiming({ now: () => clockMs, sleep: async (ms) => void paddings.push(ms) });
    const { deps, email, mailbox, dispose } = await withAccount({ replyTiming });
    // A known address whose mail takes 80 ms, then an unknown one that takes none.
    deps.mail = { ...mailbox.mail, passwordReset: async () => void (clockMs += 80) };
    await requestPasswordReset(deps, { email });
    await requestPasswordReset(deps, { email: uniqueEmail() });
    expect(paddings).toEqual([80]);
    dispose();
  });

  it('sets the new password once: old refused, new accepted, every session ended, failures cleared', async () => {
    const { deps, email, reset, dispose } = await withAccount();
    const before = await signIn(deps, email, PASSWORD);
    await expect(signIn(deps, email, 'not the password')).rejects.toBeInstanceOf(InvalidCredentialsError);
    const token = await reset();
    await confirmPasswordReset(deps, { token, newPassword: NEW_PASSWORD });
    await expect(signIn(deps, email, PASSWORD)).rejects.toBeInstanceOf(InvalidCredentialsError);
    const after = await signIn(deps, email, NEW_PASSWORD);
    expect(decodeJwt(after.accessToken).email_verified).toBe(true);
    expect(await failureOf(refreshSession(deps, { refreshToken: before.refreshToken }))).toBeInstanceOf(InvalidGrantError);
    // Single use.
    expect(await failureOf(confirmPasswordReset(deps, { token, newPassword: 'yet another passphrase' }))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('a password change voids a reset link mailed before it', async () => {
    const { deps, email, reset, client, tableName, dispose } = await withAccount();
    const token = await reset();
    const { accessToken } = await signIn(deps, email, PASSWORD);
    await changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    // Within its hour, but the item is gone: the link cannot undo the change.
    expect(await failureOf(confirmPasswordReset(deps, { token, newPassword: 'what the mailbox reader wants' }))).toBeInstanceOf(InvalidOneTimeTokenError);
    const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: tokenKey('reset', token!.split('.')[0]!) } }, ConsistentRead: true }));
    expect(Item).toBeUndefined();
    await signIn(deps, email, NEW_PASSWORD);
    // A link asked for after the change works.
    await confirmPasswordReset(deps, { token: await reset(), newPassword: 'a later reset passphrase' });
    dispose();
  });

  it('a reset voids a reset link requested while it ran', async () => {
    const { deps, email, reset, mailbox, dispose } = await withAccount();
    const token = await reset();
    // Deterministic interleaving: after the confirm used its token, before it stores the new password, another link is asked for.
    let later: string | undefined;
    const users = Object.create(deps.users) as typeof deps.users;
    users.replacePasswordHash = async (input) => ((later ??= await reset()), deps.users.replacePasswordHash(input));
    await confirmPasswordReset({ ...deps, users }, { token, newPassword: NEW_PASSWORD });
    expect(later).toBe(mailbox.last('password_reset')!.token);
    expect(await failureOf(confirmPasswordReset(deps, { token: later!, newPassword: 'what the mailbox reader wants' }))).toBeInstanceOf(InvalidOneTimeTokenError);
    await signIn(deps, email, NEW_PASSWORD);
    dispose();
  });

  it('lets the owner in after a reset from the source whose failures made it wait', async () => {
    const { deps, email, reset, dispose } = await withAccount({ rateLimits: limits({}, { failuresPerAccountSource: 2 }) });
    for (let i = 0; i < 2; i++) await expect(signIn(deps, email, 'not the password')).rejects.toBeInstanceOf(InvalidCredentialsError);
    await expect(signIn(deps, email, PASSWORD)).rejects.toBeInstanceOf(RateLimitedError);
    await confirmPasswordReset(deps, { token: await reset(), newPassword: NEW_PASSWORD, sourceIp: '198.51.100.7' });
    await signIn(deps, email, NEW_PASSWORD);
    dispose();
  });

  it('refuses resending a verification link for a signed-out session', async () => {
    const { deps, email, dispose } = await withAccount();
    const { accessToken } = await signIn(deps, email, PASSWORD);
    const { logout } = await import('../packages/server/src/features/sessions/end-sessions.js');
    await logout(deps, { accessToken });
    expect(await failureOf(resendVerification(deps, { accessToken }))).toBeInstanceOf(UnauthenticatedError);
    dispose();
  });

  it('applies the password rules to the new password, and keeps the token for a better one', async () => {
    const { deps, email, reset, dispose } = await withAccount();
    const token = await reset();
    expect(await failureOf(confirmPasswordReset(deps, { token, newPassword: 'password123' }))).toBeInstanceOf(PasswordRejectedError);
    await confirmPasswordReset(deps, { token, newPassword: NEW_PASSWORD });
    await signIn(deps, email, NEW_PASSWORD);
    dispose();
  });

  it('of two racing confirms exactly one wins', async () => {
    const { deps, email, reset, dispose } = await withAccount();
    const token = await reset();
    const results = await Promise.all(
      ['first racing passphrase', 'second racing passphrase'].map((newPassword) => failureOf(confirmPasswordReset(deps, { token, newPassword }))),
    );
    expect(results.filter((r) => r === undefined)).toHaveLength(1);
    expect(results.filter((r) => r instanceof InvalidOneTimeTokenError)).toHaveLength(1);
    const winner = results[0] === undefined ? 'first racing passphrase' : 'second racing passphrase';
    await signIn(deps, email, winner);
    dispose();
  });

  it('refuses an expired token that TTL has not deleted yet', async () => {
    const { deps, reset, clock, client, tableName, dispose } = await withAccount();
    const token = await reset();
    clock.advance(3601);
    const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: tokenKey('reset', token!.split('.')[0]!) } }, ConsistentRead: true }));
    expect(Item).toBeDefined();
    expect(await failureOf(confirmPasswordReset(deps, { token, newPassword: NEW_PASSWORD }))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('a new request voids the earlier link, and wrong tokens void the outstanding one', async () => {
    const { deps, reset, dispose } = await withAccount();
    const first = await reset();
    const second = await reset();
    expect(await failureOf(confirmPasswordReset(deps, { token: first, newPassword: NEW_PASSWORD }))).toBeInstanceOf(InvalidOneTimeTokenError);
    const [accountKey] = second!.split('.');
    for (let i = 0; i < deps.recovery.wrongTokenLimit; i++) {
      const wrong = `${accountKey}.${'B'.repeat(43)}`;
      expect(await failureOf(confirmPasswordReset(deps, { token: wrong, newPassword: NEW_PASSWORD }))).toBeInstanceOf(InvalidOneTimeTokenError);
    }
    expect(await failureOf(confirmPasswordReset(deps, { token: second, newPassword: NEW_PASSWORD }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(await failureOf(confirmPasswordReset(deps, { token: 'garbage', newPassword: NEW_PASSWORD }))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('limits reset mails per account silently', async () => {
    const { deps, mailbox, email, dispose } = await withAccount();
    for (let i = 0; i < deps.recovery.mailsPerAccountPerHour + 2; i++) await requestPasswordReset(deps, { email });
    expect(mailbox.sent.filter((m) => m.kind === 'password_reset')).toHaveLength(deps.recovery.mailsPerAccountPerHour);
    dispose();
  });

  it('counts look-alikes of an address as that account: 15 spellings x 4 requests still mail it 3 times', async () => {
    const { deps, mailbox, email, dispose } = await withAccount();
    const spellings = lookAlikes(email.split('@')[0]!);
    expect(new Set(spellings).size).toBe(15);
    for (const spelling of spellings) {
      // Each spelling is either this account (taken) or refused: never an account of its own.
      const registered = await failureOf(register(deps, { email: spelling, password: 'the look-alike owner' }));
      expect(registered instanceof AccountExistsConflictError || registered instanceof InvalidRequestError, spelling).toBe(true);
      if (registered instanceof InvalidRequestError) expect(registered.field).toBe('email');
      for (let i = 0; i < 4; i++) await failureOf(requestPasswordReset(deps, { email: spelling, sourceIp: '198.51.100.7' }));
    }
    const resets = mailbox.sent.filter((m) => m.kind === 'password_reset');
    expect(resets).toHaveLength(deps.recovery.mailsPerAccountPerHour);
    expect(resets.every((m) => m.to === email)).toBe(true);
    dispose();
  });

  it('stores only the hash of the token', async () => {
    const { reset, client, tableName, dispose } = await withAccount();
    const token = (await reset())!;
    const [accountKey, secret] = token.split('.');
    const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: tokenKey('reset', accountKey!) } }, ConsistentRead: true }));
    expect(JSON.stringify(Item)).not.toContain(secret);
    dispose();
  });
});

describe.each(dynamoDbServers)('email verification on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function verifying(requireVerifiedEmail: boolean) {
    const clock = movableClock();
    const fixture = await createAuthFixture(server.endpoint, { now: clock.now });
    fixture.deps.recovery = { ...fixture.deps.recovery, emailVerification: true, requireVerifiedEmail };
    return { ...fixture, clock };
  }

  it('registration answers the same for a new and a taken email; each owner gets the right mail', async () => {
    const { deps, mailbox, dispose } = await verifying(false);
    const email = uniqueEmail();
    const fresh = await register(deps, { email, password: PASSWORD });
    const taken = await register(deps, { email, password: 'someone else entirely' });
    expect(taken).toEqual(fresh);
    expect(fresh).toEqual({ verification: 'sent' });
    expect(mailbox.sent.map((m) => m.kind)).toEqual(['email_verification', 'registration_attempt']);
    expect(mailbox.sent.every((m) => m.to === email)).toBe(true);
    // The taken email's password did not change.
    await signIn(deps, email, PASSWORD);
    dispose();
  });

  it('verifies with the mailed token; access tokens say so, and the link works once', async () => {
    const { deps, mailbox, dispose } = await verifying(false);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const before = await signIn(deps, email, PASSWORD);
    expect(decodeJwt(before.accessToken).email_verified).toBe(false);
    const token = mailbox.last('email_verification')!.token;
    await verifyEmail(deps, { token });
    expect(decodeJwt((await signIn(deps, email, PASSWORD)).accessToken).email_verified).toBe(true);
    // The session from before verification refreshes into a verified token too.
    const refreshed = await refreshSession(deps, { refreshToken: before.refreshToken });
    expect(decodeJwt(refreshed.accessToken).email_verified).toBe(true);
    expect(await failureOf(verifyEmail(deps, { token }))).toBeInstanceOf(InvalidOneTimeTokenError);
    dispose();
  });

  it('with verification required, a correct login on an unverified account is 403 and mails a new link; a wrong one stays 401', async () => {
    const { deps, mailbox, dispose } = await verifying(true);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    await expect(signIn(deps, email, 'not the password')).rejects.toBeInstanceOf(InvalidCredentialsError);
    await expect(signIn(deps, email, PASSWORD)).rejects.toBeInstanceOf(EmailNotVerifiedError);
    const links = mailbox.sent.filter((m) => m.kind === 'email_verification').map((m) => ({ token: m.token ?? '' }));
    expect(links).toHaveLength(2);
    // The newest link works; the first was replaced by it.
    expect(await failureOf(verifyEmail(deps, { token: links[0]!.token }))).toBeInstanceOf(InvalidOneTimeTokenError);
    await verifyEmail(deps, { token: links[1]!.token });
    await signIn(deps, email, PASSWORD);
    dispose();
  });

  it('resends a link to the token holder, and nothing once verified', async () => {
    const { deps, mailbox, dispose } = await verifying(false);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const { accessToken } = await signIn(deps, email, PASSWORD);
    await resendVerification(deps, { accessToken });
    expect(mailbox.sent.filter((m) => m.kind === 'email_verification')).toHaveLength(2);
    await verifyEmail(deps, { token: mailbox.last('email_verification')!.token });
    await resendVerification(deps, { accessToken });
    expect(mailbox.sent.filter((m) => m.kind === 'email_verification')).toHaveLength(2);
    dispose();
  });

  it('a password change voids an outstanding verification link; a new one works', async () => {
    const { deps, mailbox, users, dispose } = await verifying(false);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const link = mailbox.last('email_verification')!.token;
    const { accessToken } = await signIn(deps, email, PASSWORD);
    await changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(await failureOf(verifyEmail(deps, { token: link }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect((await users.getUserByEmail(email))!.emailVerified).not.toBe(true);
    // The session that changed it goes on, and asks for a new link.
    await resendVerification(deps, { accessToken });
    await verifyEmail(deps, { token: mailbox.last('email_verification')!.token });
    expect((await users.getUserByEmail(email))!.emailVerified).toBe(true);
    dispose();
  });

  it('a reset verifies the email and voids the verification link outstanding', async () => {
    const { deps, mailbox, users, events, dispose } = await verifying(false);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const link = mailbox.last('email_verification')!.token;
    await requestPasswordReset(deps, { email });
    await confirmPasswordReset(deps, { token: mailbox.last('password_reset')!.token, newPassword: NEW_PASSWORD });
    expect((await users.getUserByEmail(email))!.emailVerified).toBe(true);
    // The mailbox is proved already; the older link has nothing left to do and is refused.
    expect(await failureOf(verifyEmail(deps, { token: link }))).toBeInstanceOf(InvalidOneTimeTokenError);
    expect(events.at(-1)).toEqual({ type: 'auth.one_time_token_rejected', purpose: 'verify', reason: 'unknown' });
    expect((await users.getUserByEmail(email))!.emailVerified).toBe(true);
    dispose();
  });

  it('a look-alike of a taken address never becomes a second account verified through its mailbox', async () => {
    const { deps, mailbox, dispose } = await verifying(true);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    await verifyEmail(deps, { token: mailbox.last('email_verification')!.token });
    for (const spelling of lookAlikes(email.split('@')[0]!)) {
      const result = await failureOf(register(deps, { email: spelling, password: 'the look-alike owner' }));
      // Mapped: the same 202 as any registration, and the owner hears of it; refused: 400 on `email`.
      if (result !== undefined) expect(result).toBeInstanceOf(InvalidRequestError);
      // No look-alike holds that password: the owner's account kept its own.
      const loggedIn = await failureOf(signIn(deps, spelling, 'the look-alike owner'));
      expect(loggedIn instanceof InvalidCredentialsError || loggedIn instanceof InvalidRequestError, spelling).toBe(true);
    }
    // One verification link ever (the owner's own), and every mail to the one canonical address.
    expect(mailbox.sent.filter((m) => m.kind === 'email_verification')).toHaveLength(1);
    expect(mailbox.sent.filter((m) => m.kind === 'registration_attempt')).toHaveLength(deps.recovery.mailsPerAccountPerHour);
    expect(mailbox.sent.every((m) => m.to === email)).toBe(true);
    await signIn(deps, email, PASSWORD);
    dispose();
  });

  it('a password change still works for a verified account (rules of the other flows untouched)', async () => {
    const { deps, mailbox, dispose } = await verifying(false);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    await verifyEmail(deps, { token: mailbox.last('email_verification')!.token });
    const { accessToken } = await signIn(deps, email, PASSWORD);
    await changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    await signIn(deps, email, NEW_PASSWORD);
    dispose();
  });
});
