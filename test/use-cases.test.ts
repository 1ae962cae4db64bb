import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountExistsConflictError,
  InvalidCredentialsError,
  InvalidRequestError,
  RateLimitedError,
  UnauthenticatedError,
} from '../packages/server/src/accounts/errors.js';
import { register } from '../packages/server/src/features/register/register.js';
import { changePasswordWithToken, countingHasher, createAuthFixture, limits, sessionToken, uniqueEmail } from './support/auth-fixture.js';
import { movableClock } from './support/clock.js';
import { defaultPasswordPolicy } from './support/password-policy.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { legacyFixtures } from './support/fixtures.js';
import { DEFAULT_SESSION_CONFIG } from '../packages/server/src/features/sessions/settings.js';
import { DEFAULT_RECOVERY_CONFIG } from '../packages/server/src/features/recovery/settings.js';
import { loginSession } from './support/login-results.js';
import { NO_ACCOUNT_EVENTS } from '../packages/server/src/events/account-events.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'new password, longer and better';
// A bcrypt hash made by python-bcrypt (cost 4), as an account imported from a Rails or Node app.
const bcryptFixture = legacyFixtures.hashes.find((f) => f.id.startsWith('bcrypt-2b-c4') && !f.wrongPasswordMatches)!;

describe.each(dynamoDbServers)('use-cases on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lets exactly one of 20 concurrent registrations of one email win', async () => {
    const { deps, users, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => register(deps, { email: `  ${email.toUpperCase()} `, password: `${PASSWORD} ${i}` })),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<{ userId: string }> => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(AccountExistsConflictError);
    const stored = await users.getUserByEmail(email);
    expect(stored?.userId).toBe(won[0]!.value.userId);
    dispose();
  });

  it('keys an account by the address mail goes to: spellings of it log in to it, invisible ones are refused', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(server.endpoint);
    // An account keyed as before canonical keys (trimmed and lower-cased): an ASCII key is unchanged.
    const local = `ada.lovelace+${crypto.randomUUID()}`;
    const email = `${local}@example.com`;
    const userId = crypto.randomUUID();
    await users.createUser({ email, userId, passwordHash: await deps.hasher.hash(PASSWORD), createdAt: new Date() });
    const fullWidth = (text: string) => text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));

    for (const spelling of [`  ${local.toUpperCase()}@Example.COM `, `${fullWidth(local)}@${fullWidth('example.com')}`, `${local}@example\u3002com`]) {
      const { accessToken } = await loginSession(deps, { email: spelling, password: PASSWORD });
      expect((await deps.tokens.verify(accessToken)).userId, spelling).toBe(userId);
    }
    // Its failures count under the fingerprint of the key it always had.
    await expect(loginSession(deps, { email: fullWidth(email), password: 'not the password' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.login_failed', userId, emailFingerprint: deps.fingerprint(email) });

    for (const spelling of [`${local}@exa\u00admple.com`, `${local}\u200b@example.com`, `${local}@exa\u200dmple.com`]) {
      const refused = await loginSession(deps, { email: spelling, password: PASSWORD }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidRequestError);
      expect(refused).toMatchObject({ field: 'email', message: 'email contains an invisible, control or unassigned character' });
    }
    dispose();
  });

  it('upgrades a bcrypt account to argon2id at its first good login, never at a failed one', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    await users.createUser({ email, userId: crypto.randomUUID(), passwordHash: bcryptFixture.hash, createdAt: new Date() });

    await expect(loginSession(deps, { email, password: bcryptFixture.wrongPassword })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect((await users.getUserByEmail(email))?.passwordHash).toBe(bcryptFixture.hash);

    const token = await loginSession(deps, { email, password: bcryptFixture.password });
    expect(token.tokenType).toBe('Bearer');
    const upgraded = (await users.getUserByEmail(email))!.passwordHash;
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.password_rehashed', from: 'bcrypt', to: 'argon2id v=19,m=19456,t=2,p=1' }));

    // The upgraded record logs in without another rewrite.
    await loginSession(deps, { email, password: bcryptFixture.password });
    expect((await users.getUserByEmail(email))!.passwordHash).toBe(upgraded);
    dispose();
  });

  it('never lets a login-time upgrade overwrite a password changed meanwhile', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const userId = crypto.randomUUID();
    await users.createUser({ email, userId, passwordHash: bcryptFixture.hash, createdAt: new Date() });
    const accessToken = await sessionToken(deps, { email, userId });

    // Deterministic interleaving: while the login computes the upgrade hash, the password changes.
    let changed = false;
    const racingHasher = {
      ...deps.hasher,
      upgrade: async (stored: string, password: string) => {
        if (!changed && password === bcryptFixture.password) {
          changed = true;
          await changePasswordWithToken(deps, { accessToken, currentPassword: bcryptFixture.password, newPassword: NEW_PASSWORD });
        }
        return deps.hasher.upgrade(stored, password);
      },
    };
    // The login read again after losing its condition, and the old password no longer verifies.
    await expect(loginSession({ ...deps, hasher: racingHasher }, { email, password: bcryptFixture.password })).rejects.toBeInstanceOf(
      InvalidCredentialsError,
    );

    expect(events).toContainEqual({ type: 'auth.password_rehash_skipped', userId, reason: 'hash_changed' });
    const stored = (await users.getUserByEmail(email))!;
    expect((await deps.hasher.verify(stored.passwordHash, NEW_PASSWORD)).ok).toBe(true);
    await expect(loginSession(deps, { email, password: bcryptFixture.password })).rejects.toBeInstanceOf(InvalidCredentialsError);
    dispose();
  });

  it('keeps the new password when logins and a password change run at once', async () => {
    const { deps, users, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const userId = crypto.randomUUID();
    await users.createUser({ email, userId, passwordHash: bcryptFixture.hash, createdAt: new Date() });
    const accessToken = await sessionToken(deps, { email, userId });
    const logins = Array.from({ length: 6 }, () => loginSession(deps, { email, password: bcryptFixture.password }).catch(() => 'failed'));
    await changePasswordWithToken(deps, { accessToken, currentPassword: bcryptFixture.password, newPassword: NEW_PASSWORD });
    await Promise.all(logins);
    const stored = (await users.getUserByEmail(email))!;
    expect((await deps.hasher.verify(stored.passwordHash, NEW_PASSWORD)).ok).toBe(true);
    expect((await deps.hasher.verify(stored.passwordHash, bcryptFixture.password)).ok).toBe(false);
    dispose();
  });

  it('answers an unknown email and a wrong password alike, each after one hash at current parameters', async () => {
    const counting = countingHasher();
    const { deps, dispose } = await createAuthFixture(server.endpoint, { hasher: counting.hasher });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });

    const unknown = await loginSession(deps, { email: uniqueEmail(), password: PASSWORD }).catch((e: unknown) => e);
    const wrong = await loginSession(deps, { email, password: 'wrong password' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(InvalidCredentialsError);
    expect(wrong).toBeInstanceOf(InvalidCredentialsError);
    expect((unknown as Error).message).toBe((wrong as Error).message);
    expect(counting.calls).toEqual({ hash: 1, verify: 1, verifyDummy: 1 });
    dispose();
  });

  it('limits failures per account and source before computing any hash', async () => {
    const counting = countingHasher();
    const { deps, events, dispose } = await createAuthFixture(server.endpoint, {
      hasher: counting.hasher,
      rateLimits: limits({}, { failuresPerAccountSource: 2 }),
    });
    const email = uniqueEmail();
    const sourceIp = '198.51.100.7';
    for (let i = 0; i < 2; i++) await expect(loginSession(deps, { email, password: PASSWORD, sourceIp })).rejects.toBeInstanceOf(InvalidCredentialsError);
    const before = { ...counting.calls };
    const limited = await loginSession(deps, { email, password: PASSWORD, sourceIp }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(counting.calls).toEqual(before);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account_source' });
    dispose();
  });

  it('limits failures per source across accounts', async () => {
    // A held clock: the per-source count is kept per window, and a run across a window's end would start afresh.
    const { deps, dispose } = await createAuthFixture(server.endpoint, { now: movableClock().now, rateLimits: limits({ perSource: 3 }) });
    const sourceIp = `192.0.2.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 3; i++) {
      await expect(loginSession(deps, { email: uniqueEmail(), password: PASSWORD, sourceIp })).rejects.toBeInstanceOf(InvalidCredentialsError);
    }
    await expect(loginSession(deps, { email: uniqueEmail(), password: PASSWORD, sourceIp })).rejects.toBeInstanceOf(RateLimitedError);
    dispose();
  });

  it('changes the password only with the current one and a token of a live session', async () => {
    const { deps, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const { accessToken } = await loginSession(deps, { email, password: PASSWORD });

    await expect(changePasswordWithToken(deps, { accessToken, currentPassword: 'wrong password', newPassword: NEW_PASSWORD })).rejects.toBeInstanceOf(
      InvalidCredentialsError,
    );
    await expect(changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: 'short' })).rejects.toMatchObject({
      code: 'password_rejected',
      reason: 'too_short',
    });
    await expect(changePasswordWithToken(deps, { accessToken: undefined })).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(changePasswordWithToken(deps, { accessToken: `${accessToken}x` })).rejects.toBeInstanceOf(UnauthenticatedError);

    await changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    await expect(loginSession(deps, { email, password: PASSWORD })).rejects.toBeInstanceOf(InvalidCredentialsError);
    const fresh = await loginSession(deps, { email, password: NEW_PASSWORD });

    // A well-signed token of no session (no `sid`) changes nothing: nothing could end it.
    const sessionless = await deps.tokens.issue({ userId: (await deps.tokens.verify(fresh.accessToken)).userId });
    await expect(
      changePasswordWithToken(deps, { accessToken: sessionless.accessToken, currentPassword: NEW_PASSWORD, newPassword: PASSWORD }),
    ).rejects.toThrow('the access token belongs to no session');
    dispose();
  });
});

describe('token check', () => {
  it('answers 401 only for a rejected token; a failing verifier is not an authentication verdict', async () => {
    const { InvalidTokenError } = await import('../packages/server/src/features/tokens/errors.js');
    const fails = (error: Error) => ({
      hasher: countingHasher().hasher,
      passwordPolicy: defaultPasswordPolicy(),
      users: {} as never,
      counters: {} as never,
      tokens: { issue: async () => ({ accessToken: 'x', tokenType: 'Bearer' as const, expiresIn: 1 }), verify: async () => Promise.reject(error) },
      loginGuard: {} as never,
      sessions: {} as never,
      sessionConfig: DEFAULT_SESSION_CONFIG,
      oneTimeTokens: {} as never,
      mail: {} as never,
      recovery: DEFAULT_RECOVERY_CONFIG,
      fingerprint: () => 'f',
      rateLimits: limits(),
      audit: () => {},
      now: () => new Date(),
      accountEvents: NO_ACCOUNT_EVENTS,
    });
    const request = { accessToken: 'a.b.c', currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    await expect(changePasswordWithToken(fails(new InvalidTokenError('expired')), request)).rejects.toBeInstanceOf(UnauthenticatedError);
    const bug = new TypeError('key import failed');
    await expect(changePasswordWithToken(fails(bug), request)).rejects.toBe(bug);
  });
});

describe('storage outage', () => {
  it('answers 503-class errors for login and register, never a decision without storage', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { dynamoDbClientConfig } = await import('../packages/server/src/storage/dynamodb-client.js');
    const { AccountStore } = await import('../packages/server/src/storage/account-store.js');
    const { RateLimitStore } = await import('../packages/server/src/storage/rate-limit-store.js');
    const { LoginGuardStore } = await import('../packages/server/src/storage/login-guard-store.js');
    const { SessionStore } = await import('../packages/server/src/storage/session-store.js');
    const { freePort } = await import('./support/dynamodb-servers.js');
    const counting = countingHasher();
    const client = new DynamoDBClient(dynamoDbClientConfig({ endpoint: `http://127.0.0.1:${await freePort()}` }));
    const deps = {
      hasher: counting.hasher,
      passwordPolicy: defaultPasswordPolicy(),
      users: new AccountStore(client, 'users'),
      counters: new RateLimitStore(client, 'users'),
      loginGuard: new LoginGuardStore(client, 'users', 60),
      sessions: new SessionStore(client, 'users'),
      sessionConfig: DEFAULT_SESSION_CONFIG,
      oneTimeTokens: {} as never,
      mail: {} as never,
      mfa: {} as never,
      recovery: DEFAULT_RECOVERY_CONFIG,
      fingerprint: () => 'f',
      tokens: { issue: async () => ({ accessToken: 'x', tokenType: 'Bearer' as const, expiresIn: 1 }), verify: async () => ({ userId: 'u', issuedAt: new Date(), amr: [] }) },
      rateLimits: limits(),
      audit: () => {},
      now: () => new Date(),
      accountEvents: NO_ACCOUNT_EVENTS,
    };
    const { mapError } = await import('../packages/server/src/api/map-error.js');
    for (const run of [loginSession, register]) {
      const error = await run(deps, { email: uniqueEmail(), password: PASSWORD, sourceIp: '192.0.2.1' }).catch((e: unknown) => e);
      // What a client is answered: the API's edge translates the storage fault (register throws it as it is).
      const answer = mapError(error);
      expect(answer).toMatchObject({ status: 503, code: 'temporarily_unavailable' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // The read (login) or the rate-limit write (register) fails first, so no hash was spent on a
    // request that could not be decided.
    expect(counting.calls).toEqual({ hash: 0, verify: 0, verifyDummy: 0 });
    client.destroy();
  });
});
