/**
 * Lazy migration at login (packages/server/src/features/migration/README.md): an email with no account is checked once
 * against the old system, behind a real HTTP endpoint on 127.0.0.1 that verifies the signature
 * itself, or as a real function behind the local Lambda API endpoint the bench uses; accounts
 * land in a real DynamoDB server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SSMClient } from '@aws-sdk/client-ssm';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Before the Powertools singletons load: INFO lines (audit events, request failures) on stdout,
// which the log test reads; no EMF output.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
import { startLocalLambdaApi, type LocalLambdaApi } from '../packages/server/src/cli/bench/remote/local-lambda-api.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { DEFAULT_RECOVERY_CONFIG } from '../packages/server/src/features/recovery/settings.js';
import { loadSecrets } from '../packages/server/src/runtimes/lambda/load-secrets.js';
import { readMigrationConfig } from '../packages/server/src/config/migration-config.js';
import { readConfig } from '../packages/server/src/config/read-config.js';
import { createSsmSecretSource, ssmClientConfig } from '../packages/server/src/runtimes/lambda/ssm-secret-source.js';
import { createHttpMigrationSource } from '../packages/server/src/features/migration/http-migration-source.js';
import { createLambdaMigrationSource } from '../packages/server/src/features/migration/lambda-migration-source.js';
import { createDynamoDbClient } from '../packages/server/src/storage/dynamodb-client.js';
import { LoginGuardStore } from '../packages/server/src/storage/login-guard-store.js';
import { ensureTable } from '../packages/server/src/storage/table.js';
import type { AppDependencies } from '../packages/server/src/wiring/build-dependencies.js';
import {
  AccountExistsConflictError,
  EmailNotVerifiedError,
  InvalidCredentialsError,
  InvalidRequestError,
  RateLimitedError,
  TemporarilyUnavailableError,
} from '../packages/server/src/accounts/errors.js';
import { createLoginFailureTiming } from '../packages/server/src/features/login/login-failure-timing.js';
import { login, type LoginResponse } from '../packages/server/src/features/login/login.js';
import type { MigrationSource } from '../packages/server/src/features/migration/migration-source.js';
import { register } from '../packages/server/src/features/register/register.js';
import { sourceKeyOf } from '../packages/server/src/accounts/source-key.js';
import { buildMigrationSource } from '../packages/server/src/wiring/build-migration-source.js';
import { createAuthDependencies } from './support/app-dependencies.js';
import { countingHasher, createAuthFixture, limits, uniqueEmail } from './support/auth-fixture.js';
import { failureOf, movableClock } from './support/clock.js';
import { dynamoDbServers, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { httpApiEvent } from './support/http-api-event.js';
import { lambdaContext } from './support/lambda-context.js';
import { createLoginHandler } from './support/lambda-handlers.js';
import { startLocalSsmEndpoint } from './support/local-ssm-endpoint.js';
import { oldSystemAccounts, startOldSystemServer, type OldSystemAccounts, type OldSystemServer } from './support/old-system.js';

const SECRET = 'test-migration-secret-0123456789abcdef0123456789';
const PASSWORD = 'the password the old app knew';
const WRONG = 'not the old password';
const SOURCE = '198.51.100.20';
/** Short, so the tests about timeouts are quick; long enough for an honest answer on a loaded machine. */
const FAST_TIMEOUT_MS = 600;

const attempt = (deps: AppDependencies, email: string, password: string, sourceIp = SOURCE): Promise<LoginResponse | unknown> =>
  login(deps, { email, password, sourceIp }).catch((error: unknown) => error);

async function failuresOf(deps: AppDependencies, email: string, sourceIp = SOURCE, now = new Date()) {
  const state = await deps.loginGuard.read({ email, accountKey: deps.fingerprint(email), sourceKey: sourceKeyOf(sourceIp), now });
  return { account: state.account.failures, accountSource: state.accountSource.failures, hasAccount: state.user !== undefined };
}

describe.each(dynamoDbServers)('lazy migration over HTTPS-style signed requests, on $name', ({ start }) => {
  let dynamo: RunningDynamoDb;
  let oldSystem: OldSystemAccounts;
  let endpoint: OldSystemServer;
  let source: MigrationSource;
  beforeAll(async () => {
    dynamo = await start();
    oldSystem = oldSystemAccounts();
    endpoint = await startOldSystemServer({ secret: SECRET, accounts: oldSystem });
    source = createHttpMigrationSource({ url: endpoint.url, secret: SECRET, timeoutMs: FAST_TIMEOUT_MS });
  });
  afterAll(async () => {
    await endpoint?.stop();
    await dynamo?.stop();
  });
  afterEach(() => endpoint.behave({}));

  it('creates the account with an argon2id hash on "yes", logs in, and never asks again for that email', async () => {
    const counting = countingHasher();
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, hasher: counting.hasher });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const before = endpoint.requests.length;

    const first = (await login(deps, { email: `  ${email.toUpperCase()} `, password: PASSWORD, sourceIp: SOURCE })) as LoginResponse;
    // One signed request, carrying the normalised email.
    expect(endpoint.requests.slice(before)).toEqual([{ email, signature: 'valid' }]);
    const stored = (await users.getUserByEmail(email))!;
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(deps.hasher.describe(stored.passwordHash).scheme).toBe('argon2id');
    expect((await deps.tokens.verify(first.accessToken)).userId).toBe(stored.userId);
    expect(first.refreshToken).toEqual(expect.any(String));
    // The dummy verify ran beside the question, then the new hash: a "no" costs what an unknown email costs.
    expect(counting.calls).toEqual({ hash: 1, verify: 0, verifyDummy: 1 });
    expect(events.map((e) => e.type)).toEqual(['auth.account_migrated', 'auth.login_succeeded']);
    expect(events[0]).toEqual({ type: 'auth.account_migrated', userId: stored.userId, emailVerified: false });

    // Now an ordinary account: verified here, the old system not asked, whatever the password.
    const asked = endpoint.requests.length;
    const second = (await login(deps, { email, password: PASSWORD, sourceIp: SOURCE })) as LoginResponse;
    expect((await deps.tokens.verify(second.accessToken)).userId).toBe(stored.userId);
    expect(await attempt(deps, email, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    expect(endpoint.requests.length).toBe(asked);
    dispose();
  });

  it('asks about the canonical address (the A-label domain mail goes to), and never about a refused spelling', async () => {
    const { deps, users, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const local = `ada-${crypto.randomUUID()}`;
    const canonical = `${local}@xn--bcher-kva.example`;
    oldSystem.add(canonical, PASSWORD);
    const before = endpoint.requests.length;

    const refused = await attempt(deps, `${local}@b\u00fc\u00adcher.example`, PASSWORD);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect(endpoint.requests.length).toBe(before);

    await login(deps, { email: `${local.toUpperCase()}@B\u00dcCHER.example`, password: PASSWORD, sourceIp: SOURCE });
    expect(endpoint.requests.slice(before)).toEqual([{ email: canonical, signature: 'valid' }]);
    expect((await users.getUserByEmail(canonical))?.email).toBe(canonical);
    // The Unicode spelling is the same account from now on.
    await login(deps, { email: `${local}@b\u00fccher.example`, password: PASSWORD, sourceIp: SOURCE });
    expect(endpoint.requests.length).toBe(before + 1);
    dispose();
  });

  it('answers "no" with the ordinary 401, counts the failure, pads it, and creates nothing', async () => {
    const sleeps: number[] = [];
    const failureTiming = createLoginFailureTiming({ floorMs: 5_000, sleep: async (ms) => void sleeps.push(ms) });
    const counting = countingHasher();
    const { deps, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, failureTiming, hasher: counting.hasher });
    const known = uniqueEmail();
    oldSystem.add(known, PASSWORD);

    const rejected = await attempt(deps, known, WRONG);
    const unknownEverywhere = await attempt(deps, uniqueEmail(), PASSWORD);
    for (const answer of [rejected, unknownEverywhere]) {
      expect(answer).toBeInstanceOf(InvalidCredentialsError);
      expect((answer as Error).message).toBe(new InvalidCredentialsError().message);
    }
    expect(events.filter((e) => e.type === 'auth.login_failed')).toEqual([
      expect.objectContaining({ reason: 'migration_rejected' }),
      expect.objectContaining({ reason: 'migration_rejected' }),
    ]);
    expect(events.some((e) => e.type === 'auth.account_migrated')).toBe(false);
    expect(await failuresOf(deps, known)).toEqual({ account: 1, accountSource: 1, hasAccount: false });
    // Each failure waited up to the floor, like every other failure.
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeGreaterThan(4_000);
    expect(counting.calls).toEqual({ hash: 0, verify: 0, verifyDummy: 2 });
    dispose();
  });

  it("counts the old system's latency among the verify costs every failure is padded to", async () => {
    // The timing's clock moves only while the old system is asked (400 ms each time), so what is
    // measured does not depend on this machine's load: a verify here costs nothing on it.
    let clock = 0;
    const slowSource = { ...source, check: async (email: string, password: string) => ((clock += 400), source.check(email, password)) };
    const sleeps: number[] = [];
    const failureTiming = createLoginFailureTiming({ now: () => clock, sleep: async (ms) => void sleeps.push(ms) });
    const { deps, dispose } = await createAuthFixture(dynamo.endpoint, { migration: slowSource, failureTiming });
    const existing = uniqueEmail();
    await register(deps, { email: existing, password: PASSWORD });
    expect(await attempt(deps, uniqueEmail(), PASSWORD)).toBeInstanceOf(InvalidCredentialsError);
    // A wrong password on an account with a hash verifies in milliseconds, and then waits out
    // the rest of the slow "no": whether the old system was asked does not show in the time.
    expect(await attempt(deps, existing, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    expect(sleeps.at(-1)).toBeGreaterThanOrEqual(400);
    dispose();
  });

  it('applies the rate limits before the call: a limited login never reaches the old system', async () => {
    const { deps, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, rateLimits: limits({}, { failuresPerAccountSource: 2 }) });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    expect(await attempt(deps, email, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    expect(await attempt(deps, email, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    const reached = endpoint.requests.filter((r) => r.email === email).length;
    expect(reached).toBe(2);
    // Even the right password waits now, and the old system hears nothing of it.
    expect(await attempt(deps, email, PASSWORD)).toBeInstanceOf(RateLimitedError);
    expect(events.at(-1)).toMatchObject({ type: 'auth.rate_limited', scope: 'account_source' });
    expect(endpoint.requests.filter((r) => r.email === email).length).toBe(reached);
    dispose();
  });

  it.each([
    ['a 500', { status: 500 }, 'status'],
    ['a slow answer', { delayMs: 3_000 }, 'timeout'],
    ['garbage', { body: '<html>maintenance</html>' }, 'malformed_answer'],
    ['a "valid" that is not a boolean', { body: '{"valid":"yes"}' }, 'malformed_answer'],
    ['an answer too large to be one', { body: JSON.stringify({ valid: true, padding: 'x'.repeat(10_000) }) }, 'malformed_answer'],
    ['a redirect', { status: 307 }, 'status'],
  ] as const)('answers 503 with Retry-After on %s, creating no account and counting the failure', async (_, behaviour, reason) => {
    const clock = movableClock();
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, now: clock.now });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    endpoint.behave(behaviour);
    const started = performance.now();
    const answer = await attempt(deps, email, PASSWORD);
    expect(answer).toBeInstanceOf(TemporarilyUnavailableError);
    expect((answer as TemporarilyUnavailableError).retryAfterSeconds).toBe(5);
    // The timeout holds (with room for a loaded machine), never the old system's 3 s.
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(events.findLast((event) => event.type === 'auth.migration_unavailable')).toMatchObject({ reason, emailFingerprint: deps.fingerprint(email) });
    expect(await users.getUserByEmail(email)).toBeUndefined();
    // Counted like a wrong password on an account here, which answers 503 too while it is down.
    expect(await failuresOf(deps, email, SOURCE, clock.now())).toEqual({ account: 1, accountSource: 1, hasAccount: false });

    // Back up: once the breaker lets the next question through, the same login succeeds.
    endpoint.behave({});
    clock.advance(5);
    expect(await attempt(deps, email, PASSWORD)).toMatchObject({ tokenType: 'Bearer' });
    dispose();
  });

  it('answers every failed login 503 while the old system is down, on every container, so the outage lists no account', async () => {
    const clock = movableClock();
    const fixture = await createAuthFixture(dynamo.endpoint, { migration: source, now: clock.now });
    const { deps, events, dispose } = fixture;
    // A second container: its own store (and its own view of the breaker) on the same table.
    const other: AppDependencies = { ...deps, loginGuard: new LoginGuardStore(fixture.client, fixture.tableName, deps.rateLimits.windowSeconds) };
    const member = uniqueEmail();
    await register(deps, { email: member, password: PASSWORD });
    const stranger = uniqueEmail();
    expect(await attempt(deps, member, WRONG)).toBeInstanceOf(InvalidCredentialsError);

    endpoint.behave({ status: 500 });
    const first = await attempt(deps, stranger, WRONG);
    expect(first).toBeInstanceOf(TemporarilyUnavailableError);
    // From now on the answer does not depend on whether the email has an account here, on this
    // container or another that has not met the outage itself.
    const asked = endpoint.requests.length;
    for (const container of [deps, other]) {
      for (const email of [member, stranger, uniqueEmail()]) {
        const answer = await attempt(container, email, WRONG);
        expect(answer, email).toBeInstanceOf(TemporarilyUnavailableError);
        expect((answer as TemporarilyUnavailableError).retryAfterSeconds).toBe(5);
      }
    }
    // Until the breaker's time is up the old system is not asked again; a right password here still logs in.
    expect(endpoint.requests.length).toBe(asked);
    expect(await attempt(other, member, PASSWORD)).toMatchObject({ tokenType: 'Bearer' });
    // Audited for what each was: the old system's silence, or the member's wrong password.
    expect(events.filter((event) => event.type === 'auth.login_failed' && event.reason === 'migration_unavailable')).toHaveLength(5);
    expect(events.filter((event) => event.type === 'auth.login_failed' && event.reason === 'wrong_password')).toHaveLength(3);

    // Still down at the next try: open again. Then back up: the first answer closes it everywhere.
    clock.advance(5);
    expect(await attempt(other, stranger, WRONG)).toBeInstanceOf(TemporarilyUnavailableError);
    expect(endpoint.requests.length).toBe(asked + 1);
    expect(await attempt(deps, member, WRONG)).toBeInstanceOf(TemporarilyUnavailableError);
    endpoint.behave({});
    clock.advance(5);
    expect(await attempt(deps, stranger, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    clock.advance(1);
    for (const container of [deps, other]) expect(await attempt(container, member, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    dispose();
  });

  it('is refused by the old system when the secret differs, or when the request is older than the replay window', async () => {
    const clock = movableClock();
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { now: clock.now });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const wrongSecret = createHttpMigrationSource({ url: endpoint.url, secret: `${SECRET}-but-not-quite`, timeoutMs: FAST_TIMEOUT_MS });
    const replayed = createHttpMigrationSource({ url: endpoint.url, secret: SECRET, timeoutMs: FAST_TIMEOUT_MS, now: () => Date.now() - 10 * 60_000 });
    for (const [migration, seen] of [[wrongSecret, 'invalid'], [replayed, 'stale']] as const) {
      const answer = await attempt({ ...deps, migration }, email, PASSWORD);
      expect(answer).toBeInstanceOf(TemporarilyUnavailableError);
      expect(endpoint.requests.at(-1)).toEqual({ email, signature: seen });
      expect(events.findLast((event) => event.type === 'auth.migration_unavailable')).toMatchObject({ reason: 'status', status: 401 });
      // The breaker's time, before the next question is asked.
      clock.advance(5);
    }
    expect(await users.getUserByEmail(email)).toBeUndefined();
    dispose();
  });

  it('keeps a registration that lands between the old system\'s "yes" and the create, deciding again on it', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const stranger = 'someone else registered this';
    let registered: { userId: string } | undefined;
    endpoint.behave({
      // One that does not ask the old system (already in flight when migration was switched on).
      beforeAnswer: async () => {
        registered = (await register({ ...deps, migration: undefined }, { email, password: stranger })) as { userId: string };
      },
    });
    // The create loses its condition; the login reads again and verifies against what is stored.
    expect(await attempt(deps, email, PASSWORD)).toBeInstanceOf(InvalidCredentialsError);
    const stored = (await users.getUserByEmail(email))!;
    expect(stored.userId).toBe(registered!.userId);
    expect((await deps.hasher.verify(stored.passwordHash, stranger)).ok).toBe(true);
    expect(events.some((e) => e.type === 'auth.account_migrated')).toBe(false);
    expect(events.filter((e) => e.type === 'auth.login_failed')).toEqual([expect.objectContaining({ reason: 'wrong_password', userId: registered!.userId })]);
    expect(endpoint.requests.filter((r) => r.email === email)).toHaveLength(1);
    dispose();
  });

  it('refuses to register an email the old system still holds, asking it one signed question without a password', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const held = uniqueEmail();
    oldSystem.add(held, PASSWORD);
    const free = uniqueEmail();
    const before = endpoint.requests.length;

    const refused = await register(deps, { email: held, password: 'a stranger wants this email', sourceIp: SOURCE }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AccountExistsConflictError);
    expect(await users.getUserByEmail(held)).toBeUndefined();
    const created = (await register(deps, { email: free, password: 'a brand new password here', sourceIp: SOURCE })) as { userId: string };
    expect((await users.getUserByEmail(free))?.userId).toBe(created.userId);
    expect(endpoint.requests.slice(before)).toEqual([
      { email: held, question: 'exists', signature: 'valid' },
      { email: free, question: 'exists', signature: 'valid' },
    ]);
    expect(events.map((e) => e.type)).toEqual(['auth.registered']);

    // The owner still comes over by logging in with the old password.
    const first = (await login(deps, { email: held, password: PASSWORD, sourceIp: SOURCE })) as LoginResponse;
    expect((await deps.tokens.verify(first.accessToken)).userId).toBe((await users.getUserByEmail(held))!.userId);
    dispose();
  });

  it('with email verification on, answers a held email as a taken one: the same 202, and a mail to its owner', async () => {
    const { deps, users, mailbox, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, recovery: { ...DEFAULT_RECOVERY_CONFIG, emailVerification: true } });
    const held = uniqueEmail();
    oldSystem.add(held, PASSWORD);
    const free = uniqueEmail();
    const answers = [
      await register(deps, { email: held, password: 'a stranger wants this email', sourceIp: SOURCE }),
      await register(deps, { email: free, password: 'a brand new password here', sourceIp: SOURCE }),
    ];
    expect(answers).toEqual([{ verification: 'sent' }, { verification: 'sent' }]);
    expect(await users.getUserByEmail(held)).toBeUndefined();
    expect(mailbox.sent.map(({ kind, to }) => ({ kind, to }))).toEqual([
      { kind: 'registration_attempt', to: held },
      { kind: 'email_verification', to: free },
    ]);
    dispose();
  });

  it('answers a registration 503 with Retry-After when the old system cannot say, creating nothing', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    for (const behaviour of [{ status: 500 }, { body: '{"valid":true}' }, { delayMs: FAST_TIMEOUT_MS * 3 }]) {
      endpoint.behave(behaviour);
      const answer = await register(deps, { email, password: 'a brand new password here', sourceIp: SOURCE }).catch((error: unknown) => error);
      expect(answer).toBeInstanceOf(TemporarilyUnavailableError);
      expect((answer as TemporarilyUnavailableError).retryAfterSeconds).toBe(5);
    }
    expect(await users.getUserByEmail(email)).toBeUndefined();
    expect(events.map((e) => (e.type === 'auth.migration_unavailable' ? e.reason : e.type))).toEqual(['status', 'malformed_answer', 'timeout']);
    expect(events[0]).toEqual({ type: 'auth.migration_unavailable', reason: 'status', status: 500, emailFingerprint: deps.fingerprint(email) });
    dispose();
  });

  it('lets two concurrent first logins of one old account both in, on one account', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const [a, b] = (await Promise.all([login(deps, { email, password: PASSWORD }), login(deps, { email, password: PASSWORD })])) as LoginResponse[];
    const stored = (await users.getUserByEmail(email))!;
    expect((await deps.tokens.verify(a!.accessToken)).userId).toBe(stored.userId);
    expect((await deps.tokens.verify(b!.accessToken)).userId).toBe(stored.userId);
    expect(events.filter((e) => e.type === 'auth.account_migrated')).toHaveLength(1);
    dispose();
  });

  it('moves a password shorter than today\'s minimum, counting it as weak rather than locking its owner out', async () => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, 'abc12');
    expect(await attempt(deps, email, 'abc12')).toMatchObject({ tokenType: 'Bearer' });
    expect(deps.hasher.describe((await users.getUserByEmail(email))!.passwordHash).scheme).toBe('argon2id');
    expect(events).toContainEqual(expect.objectContaining({ type: 'auth.login_weak_password', reason: 'too_short' }));
    dispose();
  });

  it("trusts the old system's emailVerified, and without it treats the email as unverified where verification is required", async () => {
    const recovery = { ...DEFAULT_RECOVERY_CONFIG, emailVerification: true, requireVerifiedEmail: true };
    const { deps, users, mailbox, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source, recovery });
    const verified = uniqueEmail();
    oldSystem.add(verified, PASSWORD, { emailVerified: true });
    const answer = (await login(deps, { email: verified, password: PASSWORD })) as LoginResponse;
    expect(decodeJwt(answer.accessToken).email_verified).toBe(true);
    expect((await users.getUserByEmail(verified))!.emailVerified).toBe(true);

    const unconfirmed = uniqueEmail();
    oldSystem.add(unconfirmed, PASSWORD);
    expect(await attempt(deps, unconfirmed, PASSWORD)).toBeInstanceOf(EmailNotVerifiedError);
    expect((await users.getUserByEmail(unconfirmed))!.emailVerified).toBe(false);
    expect(mailbox.last('email_verification')?.to).toBe(unconfirmed);
    dispose();
  });
});

describe('lazy migration from a Lambda function, through the local Lambda API', () => {
  let dynamo: RunningDynamoDb;
  let oldSystem: OldSystemAccounts;
  let api: LocalLambdaApi;
  let mode: 'honest' | 'throw' | 'slow' = 'honest';
  let source: ReturnType<typeof createLambdaMigrationSource>;
  beforeAll(async () => {
    dynamo = await dynamoDbServers.find((s) => s.name === 'dynalite')!.start();
    oldSystem = oldSystemAccounts();
    api = await startLocalLambdaApi({
      functions: {
        'old-system': {
          memorySizeMB: 128,
          handler: async (event) => {
            if (mode === 'throw') throw new Error('the old database is down');
            if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 3_000));
            return oldSystem.answer(event);
          },
        },
      },
    });
    source = lambdaSource('old-system');
  });
  afterAll(async () => {
    source?.destroy();
    await api?.stop();
    await dynamo?.stop();
  });
  afterEach(() => {
    mode = 'honest';
  });

  const lambdaSource = (functionName: string) =>
    createLambdaMigrationSource({ functionName, timeoutMs: FAST_TIMEOUT_MS, connection: { endpoint: api.endpoint, region: 'eu-west-1' } });
  const invocations = () => api.calls.filter((call) => call.route === 'invocations');

  it('migrates on "yes" with one invocation, then logs in without invoking again', async () => {
    const { deps, users, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const before = invocations().length;
    const first = (await login(deps, { email, password: PASSWORD })) as LoginResponse;
    expect(invocations().slice(before)).toEqual([{ method: 'POST', functionName: 'old-system', route: 'invocations', memorySizeMB: 128 }]);
    const stored = (await users.getUserByEmail(email))!;
    expect(deps.hasher.describe(stored.passwordHash).scheme).toBe('argon2id');
    expect((await deps.tokens.verify(first.accessToken)).userId).toBe(stored.userId);
    await login(deps, { email, password: PASSWORD });
    expect(invocations().length).toBe(before + 1);
    dispose();
  });

  it('asks the function at registration too: a held email is taken, a free one registers', async () => {
    const { deps, users, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const held = uniqueEmail();
    oldSystem.add(held, PASSWORD);
    const free = uniqueEmail();
    const before = invocations().length;
    expect(await register(deps, { email: held, password: 'a stranger wants this email' }).catch((error: unknown) => error)).toBeInstanceOf(AccountExistsConflictError);
    await register(deps, { email: free, password: 'a brand new password here' });
    expect(invocations().length).toBe(before + 2);
    expect(await users.getUserByEmail(held)).toBeUndefined();
    expect(await users.getUserByEmail(free)).toBeDefined();
    dispose();
  });

  it('answers "no" with 401 and a counted failure', async () => {
    const { deps, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    expect(await attempt(deps, email, WRONG)).toBeInstanceOf(InvalidCredentialsError);
    expect(await failuresOf(deps, email)).toEqual({ account: 1, accountSource: 1, hasAccount: false });
    dispose();
  });

  it.each([
    ['the function throws', 'throw', 'function_error'],
    ['the function is too slow', 'slow', 'timeout'],
  ] as const)('answers 503 when %s, and creates nothing', async (_, behaviour, reason) => {
    const { deps, users, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: source });
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    mode = behaviour;
    const started = performance.now();
    const answer = await attempt(deps, email, PASSWORD);
    expect(answer).toBeInstanceOf(TemporarilyUnavailableError);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(events.findLast((event) => event.type === 'auth.migration_unavailable')).toMatchObject({ reason });
    expect(await users.getUserByEmail(email)).toBeUndefined();
    dispose();
  });

  it('answers 503 naming the status when the function does not exist', async () => {
    const missing = lambdaSource('no-such-function');
    const { deps, events, dispose } = await createAuthFixture(dynamo.endpoint, { migration: missing });
    expect(await attempt(deps, uniqueEmail(), PASSWORD)).toBeInstanceOf(TemporarilyUnavailableError);
    expect(events.findLast((event) => event.type === 'auth.migration_unavailable')).toMatchObject({ reason: 'status', status: 404 });
    missing.destroy();
    dispose();
  });
});

describe('lazy migration wired from the environment, through the Lambda login handler', () => {
  let dynamo: RunningDynamoDb;
  let dataDir: string;
  let oldSystem: OldSystemAccounts;
  let endpoint: OldSystemServer;
  let api: LocalLambdaApi;
  const table = `users-${crypto.randomUUID()}`;
  beforeAll(async () => {
    dynamo = await dynamoDbServers.find((s) => s.name === 'dynalite')!.start();
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), table);
    dataDir = await mkdtemp(join(tmpdir(), 'passlane-migration-'));
    oldSystem = oldSystemAccounts();
    endpoint = await startOldSystemServer({ secret: SECRET, accounts: oldSystem });
    api = await startLocalLambdaApi({ functions: { 'old-system': { memorySizeMB: 128, handler: (event) => oldSystem.check(event) } } });
  });
  afterAll(async () => {
    await endpoint?.stop();
    await api?.stop();
    await dynamo?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const baseEnv = () => ({ DYNAMODB_ENDPOINT: dynamo.endpoint, PASSLANE_TABLE: table });
  const call = async (handler: ReturnType<typeof createLoginHandler>, body: unknown) => {
    const result = (await handler(httpApiEvent('POST', '/login', body) as never, lambdaContext())) as { statusCode: number; headers?: Record<string, string>; body?: string };
    return { status: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body ?? '{}') as Record<string, unknown> };
  };

  it('answers 200, 401 and 503 as a login does, and writes neither the password nor the email to the logs', async () => {
    // A table of its own: the outage leaves the breaker open there for the next seconds.
    const outageTable = `users-${crypto.randomUUID()}`;
    await ensureTable(createDynamoDbClient({ endpoint: dynamo.endpoint }), outageTable);
    const env = { ...baseEnv(), PASSLANE_TABLE: outageTable, PASSLANE_MIGRATION_URL: endpoint.url, PASSLANE_MIGRATION_SECRET: SECRET, PASSLANE_MIGRATION_TIMEOUT_MS: String(FAST_TIMEOUT_MS) };
    const deps = createAuthDependencies(env, { dataDir });
    const handler = createLoginHandler(() => deps);
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const waiting = uniqueEmail();
    oldSystem.add(waiting, PASSWORD);
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array) => (written.push(String(chunk)), true);
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    let results;
    try {
      const rejected = await call(handler, { email, password: WRONG });
      const migrated = await call(handler, { email, password: PASSWORD });
      const outage = await (async () => {
        endpoint.behave({ status: 502 });
        try {
          return await call(handler, { email: waiting, password: PASSWORD });
        } finally {
          endpoint.behave({});
        }
      })();
      results = { outage, rejected, migrated };
    } finally {
      vi.restoreAllMocks();
    }
    expect(results.outage.status).toBe(503);
    expect(results.outage.headers['retry-after']).toBe('5');
    expect(results.outage.body).toEqual({ error: { code: 'temporarily_unavailable', message: expect.any(String) } });
    expect(results.rejected.status).toBe(401);
    expect(results.rejected.body).toEqual({ error: { code: 'invalid_credentials', message: new InvalidCredentialsError().message } });
    expect(results.migrated.status).toBe(200);

    const lines = written.join('').split('\n').filter(Boolean);
    // The audit trail is there (so the test saw the logs), by fingerprint only.
    expect(lines.some((line) => line.includes('auth.account_migrated'))).toBe(true);
    expect(lines.some((line) => line.includes('auth.migration_unavailable'))).toBe(true);
    const all = written.join('');
    for (const secret of [PASSWORD, WRONG, email, waiting, SECRET]) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/\$argon2id\$/);
  });

  it('invokes PASSLANE_MIGRATION_FUNCTION through the Node platform, the SDK client loaded only for it', async () => {
    const env = { ...baseEnv(), PASSLANE_MIGRATION_FUNCTION: 'old-system', PASSLANE_MIGRATION_LAMBDA_ENDPOINT: api.endpoint, AWS_REGION: 'eu-west-1' };
    const handler = createLoginHandler(() => createAuthDependencies(env, { dataDir }));
    const email = uniqueEmail();
    oldSystem.add(email, PASSWORD);
    const before = api.calls.length;
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const answer = await call(handler, { email, password: PASSWORD }).finally(() => vi.restoreAllMocks());
    expect(answer.status).toBe(200);
    expect(written.join('')).toContain('auth.account_migrated');
    expect(written.join('')).not.toContain(PASSWORD);
    expect(api.calls.slice(before)).toEqual([expect.objectContaining({ functionName: 'old-system', route: 'invocations' })]);
  });
});

describe('migration settings', () => {
  const url = 'https://old.example.com/passlane/check';
  const configError = (env: Record<string, string>): ConfigError => {
    try {
      readMigrationConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('no ConfigError');
  };

  it('is off by default, and reads the URL form with its secret and a bounded timeout', () => {
    expect(readMigrationConfig({})).toBeUndefined();
    expect(readConfig({}).migration).toBeUndefined();
    expect(readMigrationConfig({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_SECRET: SECRET })).toEqual({ kind: 'url', url, secret: SECRET, timeoutMs: 3000 });
    expect(readMigrationConfig({ PASSLANE_MIGRATION_URL: 'http://127.0.0.1:8080/check', PASSLANE_MIGRATION_SECRET: SECRET, PASSLANE_MIGRATION_TIMEOUT_MS: '800' })).toMatchObject({ timeoutMs: 800 });
    for (const timeout of ['99', '10001', '3s']) {
      expect(configError({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_SECRET: SECRET, PASSLANE_MIGRATION_TIMEOUT_MS: timeout }).variable).toBe('PASSLANE_MIGRATION_TIMEOUT_MS');
    }
  });

  it('refuses both forms at once, plain http off loopback, credentials in the URL, and a missing or short secret, never quoting it', () => {
    expect(configError({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_FUNCTION: 'old', PASSLANE_MIGRATION_SECRET: SECRET }).message).toMatch(/both/);
    expect(configError({ PASSLANE_MIGRATION_URL: 'http://old.example.com/check', PASSLANE_MIGRATION_SECRET: SECRET }).variable).toBe('PASSLANE_MIGRATION_URL');
    expect(configError({ PASSLANE_MIGRATION_URL: 'https://user:pw@old.example.com/', PASSLANE_MIGRATION_SECRET: SECRET }).variable).toBe('PASSLANE_MIGRATION_URL');
    expect(configError({ PASSLANE_MIGRATION_URL: url }).variable).toBe('PASSLANE_MIGRATION_SECRET');
    const short = configError({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_SECRET: 'short-secret-value' });
    expect(short.variable).toBe('PASSLANE_MIGRATION_SECRET');
    expect(short.message).not.toContain('short-secret-value');
    expect(configError({ PASSLANE_MIGRATION_SECRET: SECRET }).variable).toBe('PASSLANE_MIGRATION_SECRET');
    expect(configError({ PASSLANE_MIGRATION_FUNCTION: 'old', PASSLANE_MIGRATION_SECRET: SECRET }).variable).toBe('PASSLANE_MIGRATION_SECRET');
  });

  it('reads the function form: a name, partial ARN or ARN (whose region wins), with a qualifier', () => {
    expect(readMigrationConfig({ PASSLANE_MIGRATION_FUNCTION: 'old-auth', AWS_REGION: 'eu-west-1' })).toEqual({
      kind: 'function',
      functionName: 'old-auth',
      timeoutMs: 3000,
      connection: { region: 'eu-west-1' },
    });
    const arn = 'arn:aws:lambda:us-east-2:123456789012:function:old-auth:live';
    expect(readMigrationConfig({ PASSLANE_MIGRATION_FUNCTION: arn, AWS_REGION: 'eu-west-1' })).toMatchObject({ functionName: arn, connection: { region: 'us-east-2' } });
    expect(readMigrationConfig({ PASSLANE_MIGRATION_FUNCTION: '123456789012:function:old-auth' })).toMatchObject({ kind: 'function' });
    for (const bad of ['old auth', 'arn:aws:s3:::bucket', 'x'.repeat(65)]) {
      expect(configError({ PASSLANE_MIGRATION_FUNCTION: bad }).variable).toBe('PASSLANE_MIGRATION_FUNCTION');
    }
    expect(configError({ PASSLANE_MIGRATION_FUNCTION: 'old', PASSLANE_MIGRATION_LAMBDA_ENDPOINT: 'not a url' }).variable).toBe('PASSLANE_MIGRATION_LAMBDA_ENDPOINT');
  });

  it('refuses the function form on a host without the AWS SDK (the Worker)', async () => {
    const config = readMigrationConfig({ PASSLANE_MIGRATION_FUNCTION: 'old-auth' });
    await expect(buildMigrationSource(config, {})).rejects.toMatchObject({ variable: 'PASSLANE_MIGRATION_FUNCTION' });
    await expect(buildMigrationSource(readMigrationConfig({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_SECRET: SECRET }), {})).resolves.toHaveProperty('holds');
  });

  it('fetches the secret from SSM when PASSLANE_MIGRATION_SECRET_PARAMETER names it', async () => {
    const parameter = '/passlane/test/migration-secret';
    const ssm = await startLocalSsmEndpoint({ [parameter]: SECRET });
    try {
      const client = new SSMClient(ssmClientConfig({ endpoint: ssm.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
      const env = await loadSecrets({ PASSLANE_MIGRATION_URL: url, PASSLANE_MIGRATION_SECRET_PARAMETER: parameter }, () => createSsmSecretSource(client));
      expect(readConfig(env).migration).toEqual({ kind: 'url', url, secret: SECRET, timeoutMs: 3000 });
      expect(ssm.requests.map((r) => r.body)).toEqual([{ Name: parameter, WithDecryption: true }]);
      client.destroy();
    } finally {
      await ssm.stop();
    }
    expect(await failureOf(loadSecrets({ PASSLANE_MIGRATION_SECRET: SECRET, PASSLANE_MIGRATION_SECRET_PARAMETER: parameter }, () => ({ get: async () => SECRET })))).toMatchObject({
      name: 'SecretLoadError',
    });
  });
});
