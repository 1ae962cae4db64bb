/**
 * The rules for new passwords (src/passwords, NIST SP 800-63B-4): length in code points after
 * NFKC, the offline blocklist (hits, misses, NFKC and case variants, its format and its
 * freshness), context words, the breach check against a local range server (only 5 hex
 * characters leave, padding, timeout, both failure modes, the cache), and how the use-cases
 * apply them: before any hash where a password is set, counted but never applied at login, and
 * login never loading the list.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBlocklistModule, GENERATED_MODULE } from '../scripts/build-blocklist.js';
import { blocklistFromBytes, type Blocklist } from '../packages/server/src/features/password/rules/blocklist.js';
import { blocklistKey, blocklistRange, decodeBlocklist, encodeBlocklist, hasKey, openBlocklist } from '../packages/server/src/features/password/rules/blocklist-format.js';
import { loadBundledBlocklist } from '../packages/server/src/features/password/rules/bundled-blocklist.js';
import { BLOCKLIST_BASE64, BLOCKLIST_ENTRIES } from '../packages/server/src/features/password/rules/blocklist-data.generated.js';
import { decodeBase64Padded } from '../packages/passlane/src/encoding.js';
import { createBreachCheck, parseRange } from '../packages/server/src/features/password/rules/breach-check.js';
import { BlocklistFormatError, BlocklistUnavailableError, BreachCheckUnavailableError } from '../packages/server/src/features/password/rules/errors.js';
import { codePointCount, foldForComparison } from '../packages/server/src/features/password/rules/normalise.js';
import { createPasswordPolicy, type PasswordPolicy } from '../packages/server/src/features/password/rules/policy.js';
import type { AuditEvent } from '../packages/server/src/accounts/audit-events.js';
import { auditExistingPassword, checkNewPassword } from '../packages/server/src/features/password/check-new-password.js';
import { PasswordRejectedError, TemporarilyUnavailableError } from '../packages/server/src/accounts/errors.js';
import { register } from '../packages/server/src/features/register/register.js';
import { changePasswordWithToken, countingHasher, createAuthFixture, uniqueEmail } from './support/auth-fixture.js';
import { startDynalite, type RunningDynamoDb } from './support/dynamodb-servers.js';
import { defaultPasswordPolicy } from './support/password-policy.js';
import { sha1Hex, startRangeServer, type RangeServer } from './support/range-server.js';
import { loginSession } from './support/login-results.js';

const STRONG = 'correct horse battery staple';

describe('the bundled blocklist', () => {
  let blocklist: Blocklist;
  beforeAll(async () => {
    blocklist = await loadBundledBlocklist();
  });

  it('holds the 100,000 most common passwords of 8+ characters at a 2^-16 false-positive rate', () => {
    expect(BLOCKLIST_ENTRIES).toBe(100_000);
    // A handful of the 100,000 hashes may collide within the range; the set holds the rest.
    expect(blocklist.size).toBeGreaterThan(99_990);
    expect(blocklist.falsePositiveRate).toBeCloseTo(2 ** -16, 7);
  });

  it('finds common passwords, in any case and after NFKC', async () => {
    for (const common of ['password123', 'qwertyuiop', 'iloveyou1', '1qaz2wsx', 'football1', 'trustno1', 'michael1']) {
      expect(await blocklist.has(common), common).toBe(true);
    }
    // Case: folded before hashing.
    for (const variant of ['PASSWORD123', 'Password123', 'pAsSwOrD123', 'QwertyUIOP']) expect(await blocklist.has(variant), variant).toBe(true);
    // NFKC: full-width letters and digits, circled digits, the `ﬀ` ligature all fold to the listed ASCII.
    for (const variant of ['ｐａｓｓｗｏｒｄ１２３', 'ＰＡＳＳＷＯＲＤ１２３', 'password①②③', 'ｑｗｅｒｔｙｕｉｏｐ']) expect(await blocklist.has(variant), variant).toBe(true);
  });

  it('does not find passwords that are not on it', async () => {
    for (const rare of [STRONG, 'purple monkey dishwasher', 'Tr0ub4dor&3-but-longer', 'x7#kq9!vLm2p', 'ünïcödé pässwörd']) {
      expect(await blocklist.has(rare), rare).toBe(false);
    }
  });

  it('reports random passwords as listed at about its false-positive rate', async () => {
    let hits = 0;
    const tries = 20_000;
    for (let i = 0; i < tries; i++) if (await blocklist.has(`random ${crypto.randomUUID()}`)) hits++;
    // Expected 0.3 at 2^-16; 5 would be a 1-in-10^5 fluke.
    expect(hits).toBeLessThan(5);
  });

  it('is what scripts/build-blocklist.ts generates from the devDependency (npm run build:blocklist)', async () => {
    const build = await buildBlocklistModule();
    expect(build.entries).toBe(100_000);
    expect(build.text === readFileSync(GENERATED_MODULE, 'utf8'), 'packages/server/src/features/password/rules/blocklist-data.generated.ts is stale: npm run build:blocklist').toBe(true);
  }, 60_000);
});

describe('the blocklist format (Golomb-Rice coded set)', () => {
  it('round-trips keys, including 0 and the range\'s last', async () => {
    const range = blocklistRange(5, 4);
    const keys = [0, 1, 17, 63, range - 1];
    const decoded = decodeBlocklist(encodeBlocklist(keys, range, 4));
    expect([...decoded.keys]).toEqual(keys);
    expect(decoded.range).toBe(range);
    const folded = foldForComparison('Hunter2Hunter2');
    const own = blocklistFromBytes(encodeBlocklist([await blocklistKey(folded, range)], range, 4));
    expect(await own.has('HUNTER2hunter2')).toBe(true);
  });

  it('finds exactly its keys across blocks, opening only the index', () => {
    const range = blocklistRange(40, 6);
    const keys = Array.from({ length: 40 }, (_, i) => i * 61 + (i % 7));
    const list = openBlocklist(encodeBlocklist(keys, range, 6, 3));
    expect(list.blockStarts).toHaveLength(14);
    for (let key = 0; key < range; key++) expect(hasKey(list, key), String(key)).toBe(keys.includes(key));
  });

  it('decodes the shipped asset whole: every block agrees with the index', () => {
    const { keys } = decodeBlocklist(decodeBase64Padded(BLOCKLIST_BASE64));
    expect(keys.length).toBeGreaterThan(99_990);
    expect(keys.every((key, i) => i === 0 || key > keys[i - 1]!)).toBe(true);
  });

  it('refuses a damaged asset with a typed error', () => {
    const range = blocklistRange(3, 8);
    const good = encodeBlocklist([5, 600, 700], range, 8);
    expect(() => decodeBlocklist(good.slice(0, good.length - 1))).toThrow(BlocklistFormatError);
    const badMagic = good.slice();
    badMagic[0] = 0;
    expect(() => decodeBlocklist(badMagic)).toThrow(BlocklistFormatError);
    const extra = new Uint8Array(good.length + 8);
    extra.set(good);
    expect(() => decodeBlocklist(extra)).toThrow(BlocklistFormatError);
  });
});

describe('the policy', () => {
  const policy = defaultPasswordPolicy();
  const verdict = (password: string, email?: string) => policy.check(password, email === undefined ? {} : { email });

  it('counts length in code points after NFKC: emoji are one each, combining marks one each unless NFKC composes them', async () => {
    // 8 emoji are 16 UTF-16 units and 8 code points.
    expect(await verdict('🔑'.repeat(8))).toMatchObject({ ok: true });
    expect(await verdict('🔑'.repeat(7))).toMatchObject({ ok: false, reason: 'too_short' });
    // e + COMBINING ACUTE composes to é under NFKC: 7 characters, though 14 code points as typed.
    expect(codePointCount('e\u0301'.repeat(7).normalize('NFKC'))).toBe(7);
    expect(await verdict('e\u0301'.repeat(7))).toMatchObject({ ok: false, reason: 'too_short' });
    // x has no precomposed acute form: each mark stays a code point of its own.
    expect(await verdict('x\u0301'.repeat(4))).toMatchObject({ ok: true });
    // A ligature that NFKC expands counts as what it becomes (ﷺ is 18 characters).
    expect(await verdict('\uFDFA'.repeat(14))).toMatchObject({ ok: true });
    expect(await verdict('\uFDFA'.repeat(15))).toMatchObject({ ok: false, reason: 'too_long' });
  });

  it('takes up to 256 characters (1024 bytes of 4-byte characters), with no truncation and no composition rules', async () => {
    expect(policy.maxLength).toBe(256);
    expect(await verdict('🔑'.repeat(256))).toMatchObject({ ok: true });
    expect(await verdict('🔑'.repeat(257))).toMatchObject({ ok: false, reason: 'too_long', message: 'Use at most 256 characters.' });
    expect(await verdict('p'.repeat(2000))).toMatchObject({ ok: false, reason: 'too_long' });
    // Lower case only, no digit, no symbol: fine. So is a long one that starts like a common one.
    expect(await verdict('purple monkey dishwasher')).toEqual({ ok: true, breachCheck: 'off' });
    expect(await verdict(`password123${'!'.repeat(40)} and more`)).toMatchObject({ ok: true });
  });

  it('has a configurable minimum, never below 8', async () => {
    const fifteen = defaultPasswordPolicy({ minLength: 15 });
    expect(await fifteen.check('fourteen chars', {})).toMatchObject({ ok: false, reason: 'too_short', message: expect.stringMatching(/at least 15 characters/) });
    expect(await fifteen.check('fifteen chars!!', {})).toMatchObject({ ok: true });
    expect(() => createPasswordPolicy({ minLength: 7 })).toThrow(RangeError);
  });

  it('refuses common passwords in any case or width', async () => {
    for (const common of ['password123', 'PASSWORD123', 'ｐａｓｓｗｏｒｄ１２３', 'Qwertyuiop']) {
      expect(await verdict(common), common).toMatchObject({ ok: false, reason: 'common' });
    }
  });

  it('refuses the email\'s local part (4+ characters, with or without its + tag) and the service\'s name', async () => {
    const email = 'ada.lovelace+news@example.com';
    for (const password of ['ADA.LOVELACE+news!', 'i am ada.lovelace 1815', 'ＡＤＡ.ＬＯＶＥＬＡＣＥ forever', 'ada.lovelace rules']) {
      expect(await verdict(password, email), password).toMatchObject({ ok: false, reason: 'context', message: expect.stringMatching(/email address/) });
    }
    // Pieces of the local part are not context words of their own ("reset-2024@" would refuse every "reset").
    expect(await verdict('lovelace and babbage 1843', email)).toMatchObject({ ok: true });
    expect(await verdict('a passphrase from the reset link', 'reset-2024@example.com')).toMatchObject({ ok: true });
    expect(await verdict('always al, always', 'al@example.com')).toMatchObject({ ok: true });
    const acme = defaultPasswordPolicy({ serviceName: 'Acme Bank' });
    for (const password of ['my acme bank password', 'ACMEBANK-2024-spring', 'ａｃｍｅ ｂａｎｋ is great']) {
      expect(await acme.check(password, {}), password).toMatchObject({ ok: false, reason: 'context', message: expect.stringMatching(/service's name/) });
    }
    // The default service name is passlane's own.
    expect(await verdict('my passlane login')).toMatchObject({ ok: false, reason: 'context' });
  });

  it('never puts the password in a verdict', async () => {
    for (const password of ['Zqx7w', 'p'.repeat(300), 'password123', 'ada.lovelace secret']) {
      const result = await verdict(password, 'ada.lovelace@example.com');
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain(password);
    }
  });

  it('without a blocklist (the login function) cannot check a new password, but still counts cheaply', async () => {
    const loginPolicy = createPasswordPolicy({ minLength: 8, serviceName: 'passlane' });
    await expect(loginPolicy.check(STRONG, {})).rejects.toBeInstanceOf(BlocklistUnavailableError);
    expect(loginPolicy.checkCheap('short', {})).toMatchObject({ ok: false, reason: 'too_short' });
    expect(loginPolicy.checkCheap('ada.lovelace 1815', { email: 'ada.lovelace@example.com' })).toMatchObject({ ok: false, reason: 'context' });
    expect(loginPolicy.checkCheap(STRONG, {})).toEqual({ ok: true });
  });
});

describe('Unicode: what counts towards the length, and what is compared', () => {
  const policy = defaultPasswordPolicy();
  const verdict = (password: string, email?: string) => policy.check(password, email === undefined ? {} : { email });
  const ZWSP = '\u200B';
  const SOFT_HYPHEN = '\u00AD';
  const ZWJ = '\u200D';
  const ACUTE = '\u0301';

  it('compares with the blocklist after removing invisible characters, controls and accents with no letter', async () => {
    // Listed as `password` and `qwertyuiop`: an invisible character in the middle changes nothing a person sees.
    for (const hidden of [`pass${ZWSP}word`, `pass${SOFT_HYPHEN}word`, `qwerty${ZWJ}uiop`]) {
      expect(await verdict(hidden), JSON.stringify(hidden)).toMatchObject({ ok: false, reason: 'common' });
    }
    // Byte-order mark, bidi isolates, a variation selector, a control, accents before the first letter.
    for (const hidden of ['\uFEFFpassword123', '\u2066password123\u2069', 'passw\uFE0Ford123', 'password\u0000123', `${ACUTE.repeat(3)}password123`]) {
      expect(await verdict(hidden), JSON.stringify(hidden)).toMatchObject({ ok: false, reason: 'common' });
    }
    // The list itself compares so, wherever it is asked.
    expect(await (await loadBundledBlocklist()).has(`iloveyou${ZWSP}1`)).toBe(true);
  });

  it('compares with the context words after removing invisible characters', async () => {
    const email = 'ada.lovelace@example.com';
    expect(await verdict(`ada${ZWSP}.lovelace 1815`, email)).toMatchObject({ ok: false, reason: 'context', message: expect.stringMatching(/email address/) });
    expect(await verdict(`my pass${SOFT_HYPHEN}lane login`)).toMatchObject({ ok: false, reason: 'context', message: expect.stringMatching(/service's name/) });
    // And so does the count at login.
    expect(policy.checkCheap(`grace${ZWJ}.hopper forever`, { email: 'grace.hopper@example.com' })).toMatchObject({ ok: false, reason: 'context' });
  });

  it('refuses a password of only spaces, and says so', async () => {
    // NFKC makes the no-break and ideographic spaces plain spaces.
    for (const spaces of [' '.repeat(8), ' '.repeat(64), '\u00A0'.repeat(8), '\u3000'.repeat(8), ` ${ZWSP}`.repeat(8)]) {
      expect(await verdict(spaces), JSON.stringify(spaces)).toEqual({
        ok: false,
        reason: 'too_short',
        message: 'Spaces count towards the length only beside other characters, and this password holds nothing else. Use at least 8 characters, not all of them spaces.',
      });
    }
  });

  it('refuses a password of only invisible characters, controls or accents with no letter, and says so', async () => {
    for (const invisible of [ZWSP.repeat(8), SOFT_HYPHEN.repeat(20), ACUTE.repeat(8), '\u0000'.repeat(8), '\uFE0F'.repeat(8), `${ZWJ}${ACUTE}`.repeat(8)]) {
      expect(await verdict(invisible), JSON.stringify(invisible)).toEqual({
        ok: false,
        reason: 'too_short',
        message: 'Invisible characters (such as zero-width spaces), control characters and accents with no letter under them do not count towards the length, and this password holds nothing else. Use at least 8 characters.',
      });
    }
  });

  it('does not count invisible characters towards the length, and says so', async () => {
    const tooShort = {
      ok: false,
      reason: 'too_short',
      message: 'Use at least 8 characters. Invisible characters (such as zero-width spaces), control characters and accents with no letter under them do not count.',
    };
    expect(await verdict(`Zq7${ZWSP.repeat(10)}`)).toEqual(tooShort);
    expect(await verdict(`${ACUTE.repeat(4)}Zq7wx`)).toEqual(tooShort);
    // A heart with its emoji variation selector is one character; the joiner between two emoji is none.
    expect(await verdict('❤️'.repeat(7))).toEqual(tooShort);
    expect(await verdict('❤️'.repeat(8))).toMatchObject({ ok: true });
    expect(await verdict('👩‍💻'.repeat(3))).toEqual(tooShort);
    expect(await verdict('👩‍💻'.repeat(4))).toMatchObject({ ok: true });
    // A password that is short without any of them gets the usual message.
    expect(await verdict('Zq7wx')).toMatchObject({ reason: 'too_short', message: expect.stringMatching(/^Use at least 8 characters. A few unrelated words/) });
  });

  it('counts spaces between other characters, and accents on a letter or a space', async () => {
    for (const counted of ['ab cd ef', 'wait  for  it', 'x\u0301'.repeat(4), '\u00B4'.repeat(4)]) {
      expect(await verdict(counted), JSON.stringify(counted)).toMatchObject({ ok: true });
    }
    // ´ (U+00B4) is a space and a combining acute after NFKC: two characters, like x with an acute.
    expect(await verdict('\u00B4'.repeat(3))).toMatchObject({ ok: false, reason: 'too_short' });
  });

  it('counts the same passwords as too short at login, without refusing the login', () => {
    const { deps, events } = (() => {
      const audited: AuditEvent[] = [];
      return { deps: { passwordPolicy: createPasswordPolicy({ minLength: 8, serviceName: 'passlane' }), audit: (event: AuditEvent) => audited.push(event) }, events: audited };
    })();
    auditExistingPassword(deps, { userId: 'u1', email: 'ada@example.com' }, ' '.repeat(8));
    auditExistingPassword(deps, { userId: 'u2', email: 'ada@example.com' }, ZWSP.repeat(8));
    auditExistingPassword(deps, { userId: 'u3', email: 'ada@example.com' }, STRONG);
    expect(events).toEqual([
      { type: 'auth.login_weak_password', userId: 'u1', reason: 'too_short' },
      { type: 'auth.login_weak_password', userId: 'u2', reason: 'too_short' },
    ]);
  });

  it('never puts the password in a refusal', async () => {
    for (const password of [`pass${ZWSP}word`, ' '.repeat(8), ZWSP.repeat(8), `Zq7${ZWSP.repeat(10)}`]) {
      const result = await verdict(password);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toContain(JSON.stringify(password).slice(1, -1));
    }
  });
});

describe('the breach check, against a local range server', () => {
  let range: RangeServer;
  beforeAll(async () => {
    range = await startRangeServer();
  });
  afterAll(async () => {
    await range?.stop();
  });
  const policyWith = (options: { failClosed?: boolean; timeoutMs?: number; minCount?: number; url?: string } = {}): PasswordPolicy =>
    defaultPasswordPolicy({
      breachCheck: {
        check: createBreachCheck({ url: options.url ?? range.url, timeoutMs: options.timeoutMs ?? 1000, minCount: options.minCount ?? 1 }),
        failClosed: options.failClosed ?? false,
      },
    });

  it('sends only the first 5 hex characters of the SHA-1, asking for padding', async () => {
    const password = `a breached passphrase ${crypto.randomUUID()}`;
    range.breach(password, 3);
    const before = range.requests.length;
    expect(await policyWith().check(password, {})).toMatchObject({ ok: false, reason: 'breached', message: expect.stringMatching(/data breach/) });
    const sent = range.requests.slice(before);
    expect(sent).toHaveLength(1);
    const hash = sha1Hex(password);
    expect(sent[0]!.path).toBe(`/range/${hash.slice(0, 5)}`);
    expect(sent[0]!.headers['add-padding']).toBe('true');
    // Nothing else of the hash (or the password) is anywhere in the request.
    const everything = JSON.stringify(sent[0]).toUpperCase();
    expect(everything).not.toContain(hash.slice(5, 15));
    expect(everything).not.toContain('BREACHED PASSPHRASE');
  });

  it('passes a password the corpus does not hold, and ignores padding lines (count 0)', async () => {
    expect(await policyWith().check(`never seen ${crypto.randomUUID()}`, {})).toEqual({ ok: true, breachCheck: 'passed' });
    const suffix = sha1Hex('x').slice(5);
    expect(parseRange(`${suffix}:0\r\n${'A'.repeat(35)}:7\r\nnot a line`)).toEqual(new Map([['A'.repeat(35), 7]]));
  });

  it('asks about the password without its invisible characters', async () => {
    const password = `a breached passphrase ${crypto.randomUUID()}`;
    range.breach(password, 3);
    const hidden = `${password.slice(0, 5)}\u200B${password.slice(5)}\u00AD`;
    expect(await policyWith().check(hidden, {})).toMatchObject({ ok: false, reason: 'breached' });
  });

  it('refuses from the configured count on', async () => {
    const password = `seen twice ${crypto.randomUUID()}`;
    range.breach(password, 2);
    expect(await policyWith({ minCount: 3 }).check(password, {})).toMatchObject({ ok: true, breachCheck: 'passed' });
    expect(await policyWith({ minCount: 2 }).check(password, {})).toMatchObject({ ok: false, reason: 'breached' });
  });

  it('asks only after every offline rule passed', async () => {
    const before = range.requests.length;
    for (const password of ['short', 'password123', 'my passlane login']) expect((await policyWith().check(password, {})).ok).toBe(false);
    expect(range.requests.length).toBe(before);
  });

  it('times out (default 1 s) and then fails open by default, closed when configured', async () => {
    range.behave({ delayMs: 3000 });
    try {
      const started = performance.now();
      expect(await policyWith({ timeoutMs: 200 }).check(`slow ${crypto.randomUUID()}`, {})).toEqual({ ok: true, breachCheck: 'unavailable' });
      expect(performance.now() - started).toBeLessThan(1500);
      await expect(policyWith({ timeoutMs: 200, failClosed: true }).check(`slow ${crypto.randomUUID()}`, {})).rejects.toBeInstanceOf(BreachCheckUnavailableError);
      // The default timeout, 1 s.
      const defaultStarted = performance.now();
      expect(await policyWith().check(`slow ${crypto.randomUUID()}`, {})).toMatchObject({ breachCheck: 'unavailable' });
      expect(performance.now() - defaultStarted).toBeGreaterThanOrEqual(950);
      expect(performance.now() - defaultStarted).toBeLessThan(2500);
    } finally {
      range.behave({});
    }
  });

  it('treats an error status or an unreachable server as unavailable', async () => {
    range.behave({ status: 503 });
    try {
      expect(await policyWith().check(`status ${crypto.randomUUID()}`, {})).toEqual({ ok: true, breachCheck: 'unavailable' });
      await expect(policyWith({ failClosed: true }).check(`status ${crypto.randomUUID()}`, {})).rejects.toBeInstanceOf(BreachCheckUnavailableError);
    } finally {
      range.behave({});
    }
    expect(await policyWith({ url: 'http://127.0.0.1:9/range/' }).check(`nobody there ${crypto.randomUUID()}`, {})).toMatchObject({ breachCheck: 'unavailable' });
  });

  it('caches a few range answers for minutes, never the passwords\' hashes', async () => {
    let now = 0;
    const check = createBreachCheck({ url: range.url, timeoutMs: 1000, minCount: 1, cacheEntries: 2, cacheTtlMs: 60_000, now: () => now });
    const [a, b, c] = [`cache a ${crypto.randomUUID()}`, `cache b ${crypto.randomUUID()}`, `cache c ${crypto.randomUUID()}`];
    range.breach(a);
    const before = range.requests.length;
    expect(await check.check(a)).toEqual({ status: 'breached', count: 42 });
    expect(await check.check(a)).toEqual({ status: 'breached', count: 42 });
    expect(range.requests.length - before).toBe(1);
    await check.check(b);
    await check.check(c); // evicts a's prefix (two entries kept)
    await check.check(a);
    expect(range.requests.length - before).toBe(4);
    now = 61_000; // expired
    await check.check(a);
    expect(range.requests.length - before).toBe(5);
  });
});

describe('the use-cases', () => {
  const fakeDeps = (policy: PasswordPolicy) => {
    const events: AuditEvent[] = [];
    return { deps: { passwordPolicy: policy, audit: (event: AuditEvent) => events.push(event) }, events };
  };

  it('checkNewPassword: refuses with a reason, audits without the password', async () => {
    const { deps, events } = fakeDeps(defaultPasswordPolicy());
    const error = await checkNewPassword(deps, 'Password123', { email: 'ada@example.com', action: 'password_reset', userId: 'u1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PasswordRejectedError);
    expect(error).toMatchObject({ code: 'password_rejected', reason: 'common' });
    expect(events).toEqual([{ type: 'auth.password_rejected', action: 'password_reset', reason: 'common', userId: 'u1' }]);
    await checkNewPassword(deps, STRONG, { email: 'ada@example.com', action: 'register' });
    expect(events).toHaveLength(1);
  });

  it('checkNewPassword: a breach check that cannot answer is audited, and 503 when it fails closed', async () => {
    const down = createBreachCheck({ url: 'http://127.0.0.1:9/range/', timeoutMs: 200, minCount: 1 });
    const open = fakeDeps(defaultPasswordPolicy({ breachCheck: { check: down, failClosed: false } }));
    await checkNewPassword(open.deps, STRONG, { email: 'ada@example.com', action: 'register' });
    expect(open.events).toEqual([{ type: 'auth.breach_check_unavailable', action: 'register', failClosed: false }]);
    const closed = fakeDeps(defaultPasswordPolicy({ breachCheck: { check: down, failClosed: true } }));
    await expect(checkNewPassword(closed.deps, STRONG, { email: 'ada@example.com', action: 'register' })).rejects.toBeInstanceOf(TemporarilyUnavailableError);
    expect(closed.events).toEqual([{ type: 'auth.breach_check_unavailable', action: 'register', failClosed: true }]);
  });

  it('auditExistingPassword: counts short and context passwords, refuses nothing', () => {
    const { deps, events } = fakeDeps(createPasswordPolicy({ minLength: 8, serviceName: 'passlane' }));
    auditExistingPassword(deps, { userId: 'u1', email: 'grace.hopper@example.com' }, 'cobol');
    auditExistingPassword(deps, { userId: 'u2', email: 'grace.hopper@example.com' }, 'grace.hopper1906');
    auditExistingPassword(deps, { userId: 'u3', email: 'grace.hopper@example.com' }, STRONG);
    expect(events).toEqual([
      { type: 'auth.login_weak_password', userId: 'u1', reason: 'too_short' },
      { type: 'auth.login_weak_password', userId: 'u2', reason: 'context' },
    ]);
  });

  describe('against dynalite', () => {
    let dynamo: RunningDynamoDb;
    beforeAll(async () => {
      dynamo = await startDynalite();
    });
    afterAll(async () => {
      await dynamo?.stop();
    });

    it('register refuses before hashing; password change refuses after the current password, keeping the old one', async () => {
      const counting = countingHasher();
      const { deps, events, users, dispose } = await createAuthFixture(dynamo.endpoint, { hasher: counting.hasher });
      const email = uniqueEmail();
      for (const [password, reason] of [['short', 'too_short'], ['iloveyou1', 'common'], [`${email.split('@')[0]} secret`, 'context']] as const) {
        await expect(register(deps, { email, password })).rejects.toMatchObject({ code: 'password_rejected', reason });
      }
      expect(counting.calls.hash).toBe(0);
      expect(await users.getUserByEmail(email)).toBeUndefined();
      expect(events.filter((event) => event.type === 'auth.password_rejected').map((event) => (event as { reason: string }).reason)).toEqual(['too_short', 'common', 'context']);
      expect(JSON.stringify(events)).not.toContain('iloveyou1');

      const { userId } = (await register(deps, { email, password: STRONG })) as { userId: string };
      const { accessToken } = await loginSession(deps, { email, password: STRONG });
      await expect(changePasswordWithToken(deps, { accessToken, currentPassword: STRONG, newPassword: 'qwertyuiop' })).rejects.toMatchObject({
        code: 'password_rejected',
        reason: 'common',
      });
      expect(events.at(-1)).toEqual({ type: 'auth.password_rejected', action: 'password_change', reason: 'common', userId });
      expect((await deps.hasher.verify((await users.getUserByEmail(email))!.passwordHash, STRONG)).ok).toBe(true);
      dispose();
    });

    it('hashes a password as typed: invisible characters only change how it is judged', async () => {
      const { deps, users, dispose } = await createAuthFixture(dynamo.endpoint);
      const email = uniqueEmail();
      const typed = `correct\u200B horse battery staple\u00AD`;
      await register(deps, { email, password: typed });
      const { passwordHash } = (await users.getUserByEmail(email))!;
      expect((await deps.hasher.verify(passwordHash, typed)).ok).toBe(true);
      expect((await deps.hasher.verify(passwordHash, STRONG)).ok).toBe(false);
      dispose();
    });

    it('login lets an old weak password in, counts it, and never loads the blocklist', async () => {
      let loads = 0;
      const countingLoader = async () => {
        loads++;
        return loadBundledBlocklist();
      };
      const { deps, events, users, dispose } = await createAuthFixture(dynamo.endpoint, {
        passwordPolicy: createPasswordPolicy({ minLength: 8, serviceName: 'passlane', blocklist: countingLoader }),
      });
      const email = uniqueEmail();
      const userId = crypto.randomUUID();
      // Set before the rules: 5 characters, and on every list.
      await users.createUser({ email, userId, passwordHash: await deps.hasher.hash('12345', { upgrade: true }), createdAt: new Date() });
      await loginSession(deps, { email, password: '12345' });
      expect(events).toContainEqual({ type: 'auth.login_weak_password', userId, reason: 'too_short' });
      expect(events).toContainEqual({ type: 'auth.login_succeeded', userId });
      expect(loads).toBe(0);
      dispose();
    });
  });
});
