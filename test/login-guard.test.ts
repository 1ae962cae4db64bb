/**
 * The login path as an attacker would try it (issue: "nobody can turn it against its users"):
 * failures, not attempts, are counted; one read before the verify; answers that do not depend
 * on what is stored. Against real DynamoDB servers, with a clock the test moves.
 */
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import bcryptjs from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountDisabledError, InvalidCredentialsError, InvalidRequestError, RateLimitedError } from '../packages/server/src/accounts/errors.js';
import { canonicalEmail } from '../packages/server/src/accounts/canonical-email.js';
import { userKey } from '../packages/server/src/storage/account-store.js';
import { register } from '../packages/server/src/features/register/register.js';
import { sourceKeyOf } from '../packages/server/src/accounts/source-key.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import { createLoginFailureTiming } from '../packages/server/src/features/login/login-failure-timing.js';
import { changePasswordWithToken, countingHasher, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { movableClock } from './support/clock.js';
import { loginSession } from './support/login-results.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.20';

const attempt = (deps: AppDependencies, email: string, password: string, sourceIp: string) =>
  loginSession(deps, { email, password, sourceIp }).then(
    () => 'ok' as const,
    (error: unknown) => error,
  );

describe.each(dynamoDbServers)('login limits on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lets the owner in from their own address while a stranger keeps failing elsewhere', async () => {
    const clock = movableClock();
    const { deps, dispose } = await createAuthFixture(server.endpoint, { now: clock.now, rateLimits: limits({}, { failuresPerAccountSource: 3 }) });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    // Far more attempts than the old per-account limit (10 per window) allowed in all.
    for (let i = 0; i < 3; i++) expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    for (let i = 0; i < 12; i++) expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBeInstanceOf(RateLimitedError);
    expect(await attempt(deps, email, PASSWORD, OWNER)).toBe('ok');
    dispose();
  });

  it('answers a disabled account\'s right password account_disabled and counts no failure; a wrong one fails as on any account', async () => {
    const clock = movableClock();
    const { deps, events, client, tableName, dispose } = await createAuthFixture(server.endpoint, { now: clock.now, rateLimits: limits({}, { failuresPerAccountSource: 2 }) });
    const email = uniqueEmail();
    const { userId } = (await register(deps, { email, password: PASSWORD })) as { userId: string };
    // As an operator's route will: the account item's disabledAt (the routes are another change's).
    const setDisabled = (disabled: boolean) =>
      client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: userKey(canonicalEmail(email)) } },
          UpdateExpression: disabled ? 'SET disabledAt = :at' : 'REMOVE disabledAt',
          ...(disabled && { ExpressionAttributeValues: { ':at': { S: clock.now().toISOString() } } }),
        }),
      );
    await setDisabled(true);
    // More right passwords than the source's free failures: none is counted, so none waits.
    for (let i = 0; i < 4; i++) expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBeInstanceOf(AccountDisabledError);
    expect(events.filter((event) => event.type === 'auth.login_disabled')).toEqual(Array.from({ length: 4 }, () => ({ type: 'auth.login_disabled', userId })));
    expect(events.some((event) => event.type === 'auth.login_failed' || event.type === 'auth.login_succeeded')).toBe(false);
    // A wrong password tells nothing of the state: the same answer and audit as on any account, and it counts.
    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.login_failed', reason: 'wrong_password', userId });
    await setDisabled(false);
    expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBe('ok');
    dispose();
  });

  it('makes one source wait longer after each failure past the limit, and a success clears that source', async () => {
    const clock = movableClock();
    const { deps, events, dispose } = await createAuthFixture(server.endpoint, {
      now: clock.now,
      rateLimits: limits({}, { failuresPerAccountSource: 2, delayBaseSeconds: 30, delayMaxSeconds: 100 }),
    });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });

    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    const waits: number[] = [];
    for (const expected of [30, 60, 100, 100]) {
      const limited = await attempt(deps, email, PASSWORD, ATTACKER);
      expect(limited).toBeInstanceOf(RateLimitedError);
      waits.push((limited as RateLimitedError).retryAfterSeconds);
      expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account_source' });
      clock.advance(expected);
      expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    }
    expect(waits).toEqual([30, 60, 100, 100]);

    // Its own success (once the wait is over) clears this source's failures on the account:
    // two more failures are allowed again before any wait.
    clock.advance(100);
    expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBe('ok');
    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBe('ok');
    dispose();
  });

  it('locks the account after the ceiling of consecutive failures from many sources, until the lock passes or the password changes', async () => {
    const clock = movableClock();
    const { deps, events, dispose } = await createAuthFixture(server.endpoint, {
      now: clock.now,
      rateLimits: limits({}, { failuresPerAccountSource: 5, accountFailureCeiling: 4, accountLockSeconds: 600 }),
    });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    // A session from before the attack (its token must not be from the test's future).
    const { accessToken } = await loginSession(deps, { email, password: PASSWORD, sourceIp: OWNER });
    for (let i = 1; i <= 4; i++) expect(await attempt(deps, email, WRONG, `192.0.2.${i}`)).toBeInstanceOf(InvalidCredentialsError);

    const locked = await attempt(deps, email, PASSWORD, OWNER);
    expect(locked).toBeInstanceOf(RateLimitedError);
    expect((locked as RateLimitedError).retryAfterSeconds).toBe(600);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account' });
    clock.advance(601);
    expect(await attempt(deps, email, PASSWORD, OWNER)).toBe('ok');

    // Again to the ceiling; this time a password change (with the earlier token) ends the lock.
    for (let i = 1; i <= 4; i++) expect(await attempt(deps, email, WRONG, `192.0.2.${i}`)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, PASSWORD, OWNER)).toBeInstanceOf(RateLimitedError);
    const newPassword = 'a brand new passphrase';
    await changePasswordWithToken(deps, { accessToken, currentPassword: PASSWORD, newPassword, sourceIp: OWNER });
    expect(await attempt(deps, email, newPassword, OWNER)).toBe('ok');
    dispose();
  });

  it('counts an unknown email exactly like a real one, so the limits reveal nothing', async () => {
    const clock = movableClock();
    const { deps, dispose } = await createAuthFixture(server.endpoint, { now: clock.now, rateLimits: limits({}, { failuresPerAccountSource: 2, accountFailureCeiling: 3 }) });
    const known = uniqueEmail();
    await register(deps, { email: known, password: PASSWORD });
    const answers = async (email: string) => {
      const seen: string[] = [];
      for (const source of [ATTACKER, ATTACKER, ATTACKER, '192.0.2.9', '192.0.2.10']) {
        const result = await attempt(deps, email, WRONG, source);
        seen.push(result instanceof RateLimitedError ? `429 ${result.retryAfterSeconds}` : result instanceof InvalidCredentialsError ? '401' : String(result));
      }
      return seen;
    };
    const forKnown = await answers(known);
    expect(forKnown).toEqual(['401', '401', '429 30', '401', '429 3600']);
    expect(await answers(uniqueEmail())).toEqual(forKnown);
    dispose();
  });

  it('limits failures per source across emails, counting an IPv6 /64 as one source', async () => {
    // A held clock: the per-source count is kept per window, and a run across a window's end would start afresh.
    const { deps, events, dispose } = await createAuthFixture(server.endpoint, { now: movableClock().now, rateLimits: limits({ perSource: 2 }) });
    expect(await attempt(deps, uniqueEmail(), WRONG, '2001:db8:1:2::1')).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, uniqueEmail(), WRONG, '2001:db8:1:2:ffff::7')).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, uniqueEmail(), WRONG, '2001:0db8:0001:0002:abcd::1')).toBeInstanceOf(RateLimitedError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'source' });
    // The next /64 is another source.
    expect(await attempt(deps, uniqueEmail(), WRONG, '2001:db8:1:3::1')).toBeInstanceOf(InvalidCredentialsError);
    dispose();
  });

  it('counts on items an earlier version left: a source window with only good logins in it', async () => {
    const clock = movableClock();
    const { deps, client, tableName, dispose } = await createAuthFixture(server.endpoint, { now: clock.now, rateLimits: limits({ perSource: 2, windowSeconds: 300 }) });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    // Before counting came first, a good login wrote `successes` alone into its source's window.
    const nowSeconds = Math.floor(clock.now().getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % 300);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: `failures#src#${sourceKeyOf(ATTACKER)}#${windowStart}` }, successes: { N: '3' }, expiresAt: { N: String(windowStart + 300) } },
      }),
    );
    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, WRONG, ATTACKER)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, PASSWORD, ATTACKER)).toBeInstanceOf(RateLimitedError);
    dispose();
  });

  it('reads once, reserves the attempt before the verify, and after it writes the session and gives the reservation back (a failure writes nothing more)', async () => {
    const counting = countingHasher();
    const { deps, client, dispose } = await createAuthFixture(server.endpoint, { hasher: counting.hasher });
    const email = uniqueEmail();
    await register(deps, { email, password: PASSWORD });
    const log: string[] = [];
    client.middlewareStack.add((next, context) => (args) => (log.push(String(context.commandName)), next(args)), { step: 'initialize' });
    const verify = deps.hasher.verify;
    deps.hasher = { ...deps.hasher, verify: (stored, password) => (log.push('verify'), verify(stored, password)) };
    const reserved = ['BatchGetItemCommand', 'UpdateItemCommand', 'UpdateItemCommand', 'UpdateItemCommand', 'verify'];

    // A first login: one read, its attempt reserved on the email's run, the email from this
    // source and the source's window, the verify; then the new session (with the client's new
    // device), the run deleted (nothing counted since) and the two others given back.
    const { deviceToken } = await loginSession(deps, { email, password: PASSWORD, sourceIp: OWNER });
    expect(log.slice(0, 5)).toEqual(reserved);
    expect(log.slice(5).sort()).toEqual(['DeleteItemCommand', 'UpdateItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
    // A returning client (it presents its device): the device's attempt reserved, then the session's write (which clears it).
    log.length = 0;
    await loginSession(deps, { email, password: PASSWORD, sourceIp: OWNER, deviceTokens: [deviceToken] });
    expect(log).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'verify', 'UpdateItemCommand']);

    // A failure: the reservations before the verify are its count; nothing is written after it.
    log.length = 0;
    expect(await attempt(deps, email, WRONG, OWNER)).toBeInstanceOf(InvalidCredentialsError);
    expect(log).toEqual(reserved);

    // The next good login (from the known device) ends what the failure left, and later ones write as before.
    log.length = 0;
    await loginSession(deps, { email, password: PASSWORD, sourceIp: OWNER, deviceTokens: [deviceToken] });
    expect(log.slice(0, 4)).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'verify', 'UpdateItemCommand']);
    expect(log.slice(4).sort()).toEqual(['DeleteItemCommand', 'DeleteItemCommand']);
    log.length = 0;
    await loginSession(deps, { email, password: PASSWORD, sourceIp: OWNER, deviceTokens: [deviceToken] });
    expect(log).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'verify', 'UpdateItemCommand']);
    // A known device's failure: that device's attempt alone (in the sessions item), before the verify.
    log.length = 0;
    await expect(loginSession(deps, { email, password: WRONG, sourceIp: OWNER, deviceTokens: [deviceToken] })).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(log).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'verify']);
    dispose();
  });
});

describe('answers that do not depend on what is stored', () => {
  let server: Awaited<ReturnType<(typeof dynamoDbServers)[number]['start']>>;
  beforeAll(async () => {
    server = await dynamoDbServers.find((s) => s.name === 'dynalite')!.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a password that NFKC grows past the bound with 400 for every account kind, before any lookup', async () => {
    const { deps, users, client, dispose } = await createAuthFixture(server.endpoint);
    const argon = uniqueEmail();
    await register(deps, { email: argon, password: PASSWORD });
    const legacy = uniqueEmail();
    await users.createUser({ email: legacy, userId: crypto.randomUUID(), passwordHash: bcryptjs.hashSync(PASSWORD, 4), createdAt: new Date() });
    // 300 bytes as typed; U+FDFA becomes 18 characters (33 bytes) under NFKC: 3300 bytes.
    const grows = '\uFDFA'.repeat(100);
    let reads = 0;
    client.middlewareStack.add((next) => (args) => (reads++, next(args)), { step: 'initialize' });
    for (const email of [uniqueEmail(), argon, legacy]) {
      const error = await attempt(deps, email, grows, OWNER);
      expect(error, email).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).field).toBe('password');
    }
    expect(reads).toBe(0);
    dispose();
  });

  it('answers a record that cannot be verified like a wrong password, after a dummy verify, with an audit event', async () => {
    const counting = countingHasher();
    const { deps, users, events, dispose } = await createAuthFixture(server.endpoint, { hasher: counting.hasher });
    const unknown = await attempt(deps, uniqueEmail(), PASSWORD, OWNER);
    for (const corrupt of ['$argon2id$v=19$m=19456,t=2,p=1$!!!$???', 'md5$unknown$format', '$pepper$v=1,k=retired$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$AAAA']) {
      const email = uniqueEmail();
      const userId = crypto.randomUUID();
      await users.createUser({ email, userId, passwordHash: corrupt, createdAt: new Date() });
      const before = counting.calls.verifyDummy;
      const answer = await attempt(deps, email, PASSWORD, OWNER);
      expect(answer, corrupt).toBeInstanceOf(InvalidCredentialsError);
      expect((answer as Error).message).toBe((unknown as Error).message);
      expect(counting.calls.verifyDummy).toBe(before + 1);
      expect(events.filter((event) => 'userId' in event && event.userId === userId).map((event) => event.type)).toEqual([
        'auth.stored_hash_rejected',
        'auth.login_failed',
      ]);
      expect(events.at(-1)).toMatchObject({ reason: 'unverifiable_record' });
    }
    dispose();
  });

  it('upgrades a bcrypt record without changing which passwords log in, when the password is longer than 72 bytes', async () => {
    const { deps, users, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    const real = `${'a long passphrase that keeps going '.repeat(3)}and the real ending`;
    expect(new TextEncoder().encode(real).length).toBeGreaterThan(72);
    await users.createUser({ email, userId: crypto.randomUUID(), passwordHash: bcryptjs.hashSync(real, 4), createdAt: new Date() });
    // bcrypt reads 72 bytes: another tail verifies too, as it did in the system it came from.
    const sameStart = `${real.slice(0, 72)} but a different tail`;
    expect(await attempt(deps, email, sameStart, OWNER)).toBe('ok');
    const stored = (await users.getUserByEmail(email))!;
    expect(deps.hasher.describe(stored.passwordHash).scheme).toBe('wrapped_bcrypt');
    // The real password still logs in, and so does the other one: nothing changed but the cost.
    expect(await attempt(deps, email, real, OWNER)).toBe('ok');
    expect(await attempt(deps, email, sameStart, OWNER)).toBe('ok');
    // A short password is upgraded to argon2id of itself, as before.
    const short = uniqueEmail();
    await users.createUser({ email: short, userId: crypto.randomUUID(), passwordHash: bcryptjs.hashSync(PASSWORD, 4), createdAt: new Date() });
    expect(await attempt(deps, short, PASSWORD, OWNER)).toBe('ok');
    expect(deps.hasher.describe((await users.getUserByEmail(short))!.passwordHash).scheme).toBe('argon2id');
    dispose();
  });

  it('reads again when a password change overtakes the upgrade, and issues no token on the stale read', async () => {
    const { deps, users, dispose } = await createAuthFixture(server.endpoint);
    const email = uniqueEmail();
    await users.createUser({ email, userId: crypto.randomUUID(), passwordHash: bcryptjs.hashSync(PASSWORD, 4), createdAt: new Date() });
    let issued = 0;
    const tokens = deps.tokens;
    // The owner changes the password between this login's read and its upgrade.
    const racing: AppDependencies = {
      ...deps,
      tokens: { ...tokens, issue: (input) => (issued++, tokens.issue(input)) },
      users: {
        ...users,
        getUserByEmail: users.getUserByEmail.bind(users),
        getUserById: users.getUserById.bind(users),
        createUser: users.createUser.bind(users),
        markEmailVerified: users.markEmailVerified.bind(users),
        replacePasswordHash: async (input) => {
          const changed = await deps.hasher.hash('the owner changed it meanwhile');
          await users.replacePasswordHash({ email, expectedHash: input.expectedHash, newHash: changed, reason: 'password-change' });
          return users.replacePasswordHash(input);
        },
      },
    };
    expect(await attempt(racing, email, PASSWORD, OWNER)).toBeInstanceOf(InvalidCredentialsError);
    expect(issued).toBe(0);
    dispose();
  });
});

describe('failure timing', () => {
  let server: Awaited<ReturnType<(typeof dynamoDbServers)[number]['start']>>;
  beforeAll(async () => {
    server = await dynamoDbServers.find((s) => s.name === 'dynalite')!.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * A clock that only verifies move: each verify costs what its format costs (bcrypt 300, a
   * wrapped record 350, argon2id and the dummy 50), and padding moves it by what it waits. So a
   * login's time on this clock is exactly its verify plus its padding, free of machine noise.
   */
  async function timedFixture(floorMs = 0) {
    let clock = 0;
    const costOf = (stored: string) => (stored.startsWith('$wrapped$') ? 350 : stored.startsWith('$2') ? 300 : 50);
    const { deps, users, dispose } = await createAuthFixture(server.endpoint, {
      failureTiming: createLoginFailureTiming({ floorMs, now: () => clock, sleep: async (ms) => void (clock += ms) }),
    });
    const real = deps.hasher;
    deps.hasher = {
      ...real,
      verify: async (stored, password) => ((clock += costOf(stored)), real.verify(stored, password)),
      verifyDummy: async (password) => ((clock += 50), real.verifyDummy(password)),
    };
    const timeOf = async (email: string, password: string) => {
      const before = clock;
      const result = await attempt(deps, email, password, OWNER);
      return { ms: clock - before, result };
    };
    const account = async (passwordHash: string) => {
      const email = uniqueEmail();
      await users.createUser({ email, userId: crypto.randomUUID(), passwordHash, createdAt: new Date() });
      return email;
    };
    return { deps, timeOf, account, dispose };
  }

  it('makes an unknown email, a current record and a legacy or wrapped record fail in the same time', async () => {
    const { deps, timeOf, account, dispose } = await timedFixture();
    const current = await account(await deps.hasher.hash(PASSWORD));
    const legacy = await account(bcryptjs.hashSync(PASSWORD, 4));
    const wrapped = await account(await deps.hasher.wrap(bcryptjs.hashSync(PASSWORD, 4)));
    // Once a slow record has been verified, every failure waits for that cost.
    expect((await timeOf(wrapped, WRONG)).ms).toBe(350);
    const failures = [];
    for (const email of [uniqueEmail(), current, legacy, wrapped]) failures.push(await timeOf(email, WRONG));
    for (const { result } of failures) expect(result).toBeInstanceOf(InvalidCredentialsError);
    expect(failures.map(({ ms }) => ms)).toEqual([350, 350, 350, 350]);
    // A success is not padded: only the owner of the password sees it.
    expect(await timeOf(current, PASSWORD)).toEqual({ ms: 50, result: 'ok' });
    dispose();
  });

  it('never answers a failure faster than the configured floor, even before any slow record was seen', async () => {
    const { deps, timeOf, account, dispose } = await timedFixture(400);
    const current = await account(await deps.hasher.hash(PASSWORD));
    expect((await timeOf(uniqueEmail(), WRONG)).ms).toBe(400);
    expect((await timeOf(current, WRONG)).ms).toBe(400);
    dispose();
  });
});

describe('sourceKeyOf', () => {
  it('groups IPv6 by /64 and keeps IPv4 (also when mapped into IPv6) as it is', () => {
    expect(sourceKeyOf('192.0.2.1')).toBe('192.0.2.1');
    expect(sourceKeyOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(sourceKeyOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(sourceKeyOf('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(sourceKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceKeyOf(undefined)).toBe('unknown');
    expect(sourceKeyOf('')).toBe('unknown');
  });
});
