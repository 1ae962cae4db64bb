/**
 * Failed logins take the same time whatever is stored, and no request can shorten that (issue 24,
 * "Enumeration by timing"): an attacker's own successful logins feed only their own shape, so a
 * slow legacy shape keeps padding every failure. On clocks the tests move: a verify costs what
 * its shape costs, padding moves the clock by what it waits, so times here are exact.
 */
import bcryptjs from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { CURRENT_COST_SHAPE, type PasswordHasher } from '../packages/passlane/src/create-password-hasher.js';
import { InvalidCredentialsError } from '../packages/server/src/accounts/errors.js';
import { collectShapeSamples, measureVerifyCosts } from '../packages/server/src/cli/commands/measure-verify-costs.js';
import { createFailureTiming } from '../packages/server/src/accounts/failure-timing.js';
import { createLoginFailureTiming, loginVerifyShape, MAX_SHAPES, OLD_SYSTEM_SHAPE, type LoginFailureTimingOptions } from '../packages/server/src/features/login/login-failure-timing.js';
import { login } from '../packages/server/src/features/login/login.js';
import { createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { dynamoDbServers } from './support/dynamodb-servers.js';
import { legacyFixtures } from './support/fixtures.js';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the password at all';
/** What the issue measured: an imported bcrypt-12 record against one argon2id at the policy. */
const BCRYPT_12 = 'bcrypt cost=12';
const BCRYPT_MS = 390;
const ARGON2_MS = 90;

/** A login timing on a clock that only verifies (`verify`) and padding move. */
function clockedTiming(options: Omit<LoginFailureTimingOptions, 'now' | 'sleep'> = {}) {
  let clock = 0;
  const timing = createLoginFailureTiming({ ...options, now: () => clock, sleep: async (ms) => void (clock += ms) });
  /** One login's verify of `shape` costing `ms`; the padding a failure would get. */
  const verify = (shape: string, ms: number) => {
    const timed = timing.start();
    clock += ms;
    return timed.done(shape);
  };
  return { timing, verify };
}

describe('login failure timing', () => {
  it('keeps padding failures to a slow shape after 1,000 successful logins at the current cost', () => {
    const { verify } = clockedTiming();
    expect(verify(BCRYPT_12, BCRYPT_MS)).toBe(0);
    // An attacker's own argon2id account, logged in to over and over: only the current shape moves.
    for (let i = 0; i < 1000; i++) verify(CURRENT_COST_SHAPE, ARGON2_MS);
    // An unknown email (the dummy) or a wrong password on an argon2id account: padded to bcrypt's.
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(BCRYPT_MS - ARGON2_MS);
    // The bcrypt account itself needs no padding: each of the three takes 390 ms.
    expect(verify(BCRYPT_12, BCRYPT_MS)).toBe(0);
  });

  it("pads to a shape's median: one slow outlier of a shape does not set the level for long", () => {
    const { verify } = clockedTiming();
    verify(BCRYPT_12, BCRYPT_MS);
    verify(BCRYPT_12, BCRYPT_MS);
    // A pause (GC, a noisy neighbour) in one bcrypt verify: the median of three stays 390.
    expect(verify(BCRYPT_12, 3 * BCRYPT_MS)).toBe(0);
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(BCRYPT_MS - ARGON2_MS);
  });

  it("counts the old system's answer (lazy migration) as a shape of its own", () => {
    const { verify } = clockedTiming();
    verify(OLD_SYSTEM_SHAPE, 400);
    for (let i = 0; i < 200; i++) verify(CURRENT_COST_SHAPE, ARGON2_MS);
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(400 - ARGON2_MS);
  });

  it('pads the first failure of a fresh container to the pad factor times the current verify', () => {
    const { verify } = clockedTiming({ padFactor: 4.5 });
    // Nothing legacy verified yet: an unknown email still waits for 4.5 argon2id verifies.
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(3.5 * ARGON2_MS);
    // A slower shape than the factor says still raises the level.
    verify('wrapped_bcrypt cost=12 + argon2id v=19,m=19456,t=2,p=1', 500);
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(500 - ARGON2_MS);
  });

  it('keeps the floor: no failure answers faster, whatever was seen', () => {
    const { verify } = clockedTiming({ floorMs: 600 });
    expect(verify(CURRENT_COST_SHAPE, ARGON2_MS)).toBe(600 - ARGON2_MS);
    verify(BCRYPT_12, BCRYPT_MS);
    expect(verify(BCRYPT_12, BCRYPT_MS)).toBe(600 - BCRYPT_MS);
  });

  it(`keeps at most ${MAX_SHAPES} shapes, the slowest and the current one`, () => {
    const { timing, verify } = clockedTiming({ padFactor: 10 });
    verify(CURRENT_COST_SHAPE, 10);
    verify('slowest', 500);
    // Far more shapes than the cap, all cheaper than the slowest, each dearer than the last.
    for (let i = 0; i < 10_000; i++) verify(`shape ${i}`, 20 + i / 1000);
    expect(timing.shapesKept()).toBe(MAX_SHAPES);
    expect(verify('yet another', 1)).toBe(500 - 1);
    verify('slowest', 50);
    verify('slowest', 50);
    // The current shape was the cheapest all along, and kept its costs: with its 10 ms still
    // the (upper) median, the factor pads to 100, not to the 50 the slowest shape now costs.
    expect(verify(CURRENT_COST_SHAPE, 2)).toBe(100 - 2);
  });

  it('names the shape a login verified: the old system, the dummy, or the stored record', () => {
    const hasher = createPasswordHasher({ pepper: false });
    const bcrypt = bcryptjs.hashSync(PASSWORD, 4);
    expect(loginVerifyShape(hasher, undefined, { migration: { valid: false } })).toBe(OLD_SYSTEM_SHAPE);
    expect(loginVerifyShape(hasher, undefined, {})).toBe(CURRENT_COST_SHAPE);
    // A record that could not be verified was answered by the dummy, whatever it claims to be.
    expect(loginVerifyShape(hasher, bcrypt, { unverifiable: true })).toBe(CURRENT_COST_SHAPE);
    expect(loginVerifyShape(hasher, bcrypt, {})).toBe('bcrypt cost=4');
  });
});

describe('costShape', () => {
  const hasher = createPasswordHasher({ pepper: false });

  it('names argon2id at the policy "current", whatever the salt or pepper key, and others by their cost', async () => {
    const peppered = createPasswordHasher({ pepper: { keys: { k1: crypto.getRandomValues(new Uint8Array(32)) }, currentKeyId: 'k1' } });
    expect(hasher.costShape(await hasher.hash(PASSWORD))).toBe(CURRENT_COST_SHAPE);
    expect(peppered.costShape(await peppered.hash(PASSWORD))).toBe(CURRENT_COST_SHAPE);
    const stronger = createPasswordHasher({ pepper: false, argon2: { memoryKiB: 65536, passes: 3 } });
    expect(hasher.costShape(await stronger.hash(PASSWORD))).toBe('argon2id v=19,m=65536,t=3,p=1');
  });

  it('tells bcrypt costs apart, and not salts', async () => {
    expect(hasher.costShape(bcryptjs.hashSync(PASSWORD, 4))).toBe('bcrypt cost=4');
    expect(hasher.costShape(bcryptjs.hashSync(WRONG, 4))).toBe('bcrypt cost=4');
    expect(hasher.costShape(bcryptjs.hashSync(PASSWORD, 5))).toBe('bcrypt cost=5');
    expect(hasher.costShape(await hasher.wrap(bcryptjs.hashSync(PASSWORD, 4)))).toBe('wrapped_bcrypt cost=4 + argon2id v=19,m=19456,t=2,p=1');
  });

  it('never holds salt or digest, for every legacy format', () => {
    for (const fixture of legacyFixtures.hashes) {
      const shape = hasher.costShape(fixture.hash);
      expect(shape === CURRENT_COST_SHAPE || shape.startsWith(fixture.scheme)).toBe(true);
      // Salts and digests are base64 or hex runs; cost parameters are short numbers.
      expect(shape, fixture.id).not.toMatch(/[A-Za-z0-9+/.]{17,}/);
    }
  });
});

describe('passlane inventory --timing', () => {
  it('times one record of each shape against the dummy and rounds the pad factor up', async () => {
    let clock = 0;
    const real = createPasswordHasher({ pepper: false });
    const costOf = (stored: string) => (stored.startsWith('$2') ? BCRYPT_MS : ARGON2_MS);
    const hasher: PasswordHasher = {
      ...real,
      verify: async (stored, password) => ((clock += costOf(stored)), real.verify(stored, password)),
      verifyDummy: async (password) => ((clock += ARGON2_MS), real.verifyDummy(password)),
    };
    const sealer = createPasswordHasher({ pepper: { keys: { old: crypto.getRandomValues(new Uint8Array(32)) }, currentKeyId: 'old' } });
    const samples = collectShapeSamples(hasher);
    for (const stored of [bcryptjs.hashSync(PASSWORD, 4), bcryptjs.hashSync(WRONG, 4), await real.hash(PASSWORD)]) samples.add(stored);
    // Sealed under a key this hasher lacks: a login answers it with the dummy, so it sets no factor.
    samples.add(await sealer.wrap(bcryptjs.hashSync(PASSWORD, 5)));

    const costs = await measureVerifyCosts(hasher, samples, { rounds: 3, now: () => clock });
    expect(costs).toEqual({
      currentMs: ARGON2_MS,
      rounds: 3,
      shapes: [
        { shape: 'bcrypt cost=4', accounts: 2, medianMs: BCRYPT_MS, ratio: BCRYPT_MS / ARGON2_MS },
        { shape: CURRENT_COST_SHAPE, accounts: 1, medianMs: ARGON2_MS, ratio: 1 },
        { shape: 'wrapped_bcrypt cost=5 + argon2id v=19,m=19456,t=2,p=1', accounts: 1, error: 'ERR_OPTIONS_INVALID' },
      ],
      // 390 / 90 = 4.33: rounded up, so a fresh container waits at least as long as bcrypt takes.
      padFactor: 4.4,
      slowest: 'bcrypt cost=4',
    });
    expect(JSON.stringify(costs)).not.toContain('$');
  });
});

describe('reply timing (password-reset requests, registration)', () => {
  it('is still the slowest of its last 128 answers, whatever shape it is told', () => {
    let clock = 0;
    const timing = createFailureTiming({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    const answer = (ms: number, shape?: string) => {
      const timed = timing.start();
      clock += ms;
      return timed.done(shape);
    };
    answer(80);
    expect(answer(0, 'a shape')).toBe(80);
    for (let i = 0; i < 127; i++) answer(1);
    expect(answer(1)).toBe(0);
  });
});

describe.each(dynamoDbServers.filter((s) => s.name === 'dynalite'))('login failure timing through the login on $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * The real login on a clock only verifies and padding move: bcrypt 390, a wrapped record 480,
   * argon2id and the dummy 90 (the figures). A weak policy keeps the real hashing fast.
   */
  async function clockedLogin() {
    let clock = 0;
    const real = createPasswordHasher({ pepper: false, argon2: { memoryKiB: 1024, passes: 1 }, allowWeakParameters: true });
    const costOf = (stored: string) => (stored.startsWith('$wrapped$') ? 480 : stored.startsWith('$2') ? BCRYPT_MS : ARGON2_MS);
    const hasher: PasswordHasher = {
      ...real,
      verify: async (stored, password) => ((clock += costOf(stored)), real.verify(stored, password)),
      verifyDummy: async (password) => ((clock += ARGON2_MS), real.verifyDummy(password)),
    };
    const failureTiming = createLoginFailureTiming({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    const fixture = await createAuthFixture(server.endpoint, { hasher, failureTiming });
    const timeOf = async (email: string, password: string) => {
      const before = clock;
      const result = await login(fixture.deps, { email, password, sourceIp: '203.0.113.66' }).then(() => 'ok' as const, (error: unknown) => error);
      return { ms: clock - before, result };
    };
    const account = async (passwordHash: string) => {
      const email = uniqueEmail();
      await fixture.users.createUser({ email, userId: crypto.randomUUID(), passwordHash, createdAt: new Date() });
      return email;
    };
    return { hasher, timeOf, account, dispose: fixture.dispose };
  }

  it('fails an unknown email, argon2id and imported records in the same time after 200 successful logins', async () => {
    const { hasher, timeOf, account, dispose } = await clockedLogin();
    const own = await account(await hasher.hash(PASSWORD));
    const victim = await account(await hasher.hash(PASSWORD));
    const legacy = await account(bcryptjs.hashSync(PASSWORD, 4));
    const wrapped = await account(await hasher.wrap(bcryptjs.hashSync(PASSWORD, 4)));
    // Someone tried a wrapped record once; then the attacker logs in to their own account,
    // more often than the 128 verifies the old ring remembered.
    expect((await timeOf(wrapped, WRONG)).ms).toBe(480);
    for (let i = 0; i < 200; i++) expect(await timeOf(own, PASSWORD)).toEqual({ ms: ARGON2_MS, result: 'ok' });
    const failures = [];
    for (const email of [uniqueEmail(), victim, legacy, wrapped]) failures.push(await timeOf(email, WRONG));
    for (const { result } of failures) expect(result).toBeInstanceOf(InvalidCredentialsError);
    expect(failures.map(({ ms }) => ms)).toEqual([480, 480, 480, 480]);
    dispose();
  }, 60_000);
});
