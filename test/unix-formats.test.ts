import { createHash } from 'node:crypto';
import { md5 } from '@noble/hashes/legacy.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { createPasswordHasher, DEFAULT_STORED_HASH_LIMITS } from '../packages/passlane/src/index.js';
import { parseStoredHash } from '../packages/passlane/src/schemes/parse-stored-hash.js';
import type { VerifyContext } from '../packages/passlane/src/schemes/types.js';
import { UNIX_SCHEMES } from '../packages/passlane/src/schemes/unix-schemes.js';
import { longestInputWithin } from '../packages/passlane/src/schemes/phpass.js';
import { DEPLOYED_VERIFY_BUDGET, limitsForBudget } from '../packages/passlane/src/verify-budget.js';
import { ISOLATE_VERIFY_BUDGET } from '../packages/server/src/runtimes/workers/edge-limits.js';
import { codeOf, readFixtureFile, type LegacyFixture } from './support/fixtures.js';
import { hasherWithBackend, recordingBackend } from './support/recording-backend.js';

// Counts every digest computed through @noble/hashes (all of these formats use it), so "refused
// before any hashing" is observed, not inferred from timing.
const digests = vi.hoisted(() => ({ count: 0 }));
vi.mock('@noble/hashes/sha2.js', async (importOriginal) => countDigests(await importOriginal<Record<string, unknown>>(), ['sha256', 'sha384', 'sha512']));
vi.mock('@noble/hashes/legacy.js', async (importOriginal) => countDigests(await importOriginal<Record<string, unknown>>(), ['md5', 'sha1']));

function countDigests(module: Record<string, unknown>, names: string[]) {
  const counted = { ...module };
  for (const name of names) {
    const hash = module[name] as ((message: Uint8Array) => Uint8Array) & { create(): unknown; outputLen: number; blockLen: number };
    counted[name] = Object.assign(
      (message: Uint8Array) => {
        digests.count++;
        return hash(message);
      },
      {
        outputLen: hash.outputLen,
        blockLen: hash.blockLen,
        create: () => {
          digests.count++;
          return hash.create();
        },
      },
    );
  }
  return counted;
}

interface RefusedFixture {
  id: string;
  scheme: string;
  hash: string;
  password: string;
  why: string;
}

// The fixtures every legacy test runs are in `hashes`; these cover what only this file checks.
const { file, fixture, hostile } = readFixtureFile<{ longSaltHashes: LegacyFixture[]; refusedByOriginal: RefusedFixture[] }>('unix-hashes.json');

const hasher = createPasswordHasher({ backend: 'native', pepper: false });
const parse = (stored: string, limits = DEFAULT_STORED_HASH_LIMITS) => parseStoredHash(stored, limits);
/** These schemes use neither the backend nor normalisation. */
const noContext = {} as VerifyContext;

// phpass and Drupal hashes built here with node:crypto from their documented algorithm, where
// the originals will not write them (over their guards, or at settings no generator uses).
const itoa64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function encode64(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const value = bytes[i]! | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16);
    const chars = Math.min(4, bytes.length - i + 1);
    for (let c = 0; c < chars; c++) out += itoa64[(value >> (6 * c)) & 63];
  }
  return out;
}
function stretched(algorithm: 'md5' | 'sha512', setting: string, password: string): string {
  const pw = Buffer.from(password, 'utf8');
  let hash = createHash(algorithm).update(setting.slice(4, 12)).update(pw).digest();
  for (let i = 0; i < 2 ** itoa64.indexOf(setting[3]!); i++) hash = createHash(algorithm).update(hash).update(pw).digest();
  return (setting + encode64(hash)).slice(0, algorithm === 'sha512' ? 55 : 34);
}

describe('bounds and shape are checked before any hashing', () => {
  it.each([
    ['sha512crypt-rounds-999999999', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['sha512crypt-rounds-over-bound', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['sha512crypt-rounds-10-digits', 'ERR_HASH_MALFORMED'],
    ['sha512crypt-rounds-below-1000', 'ERR_HASH_MALFORMED'],
    ['sha512crypt-rounds-leading-zero', 'ERR_HASH_MALFORMED'],
    ['sha512crypt-salt-17', 'ERR_HASH_MALFORMED'],
    ['sha512crypt-hash-noncanonical', 'ERR_HASH_MALFORMED'],
    ['sha256crypt-rounds-999999999', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['sha256crypt-hash-noncanonical', 'ERR_HASH_MALFORMED'],
    ['md5crypt-salt-9', 'ERR_HASH_MALFORMED'],
    ['md5crypt-hash-noncanonical', 'ERR_HASH_MALFORMED'],
    ['ldap-crypt-des', 'ERR_HASH_UNSUPPORTED'],
    ['ldap-crypt-bsdi', 'ERR_HASH_UNSUPPORTED'],
    ['ldap-crypt-yescrypt', 'ERR_HASH_UNSUPPORTED'],
    ['ldap-crypt-apr1', 'ERR_HASH_UNSUPPORTED'],
    ['ldap-crypt-empty', 'ERR_HASH_UNSUPPORTED'],
    ['ldap-crypt-sha512-rounds-999999999', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['ldap-crypt-bcrypt-cost-31', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['ldap-ssha-no-salt', 'ERR_HASH_MALFORMED'],
    ['ldap-ssha-salt-65', 'ERR_HASH_MALFORMED'],
    ['ldap-sha-no-padding', 'ERR_HASH_MALFORMED'],
    ['ldap-ssha-noncanonical', 'ERR_HASH_MALFORMED'],
    ['ldap-unknown-scheme', 'ERR_HASH_UNSUPPORTED'],
    ['phpass-log2-31', 'ERR_HASH_MALFORMED'],
    ['phpass-log2-30', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['phpass-log2-23', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['phpass-log2-6', 'ERR_HASH_MALFORMED'],
    ['phpass-hash-noncanonical', 'ERR_HASH_MALFORMED'],
    ['drupal7-log2-30', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['drupal7-untruncated', 'ERR_HASH_MALFORMED'],
    ['drupal7-U-log2-30', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['drupal7-U-U', 'ERR_HASH_UNSUPPORTED'],
  ])('%s: %s, without computing a digest', async (id, code) => {
    const before = digests.count;
    await expect(hasher.verify(hostile(id), 'password')).rejects.toMatchObject({ code });
    expect(codeOf(() => hasher.describe(hostile(id)))).toBe(code);
    expect(digests.count).toBe(before);
  });

  it('counts the digests of a verify that runs, so the checks above can fail', async () => {
    const before = digests.count;
    expect((await hasher.verify(fixture('md5crypt-mkpasswd-ascii').hash, 'password')).ok).toBe(true);
    // MD5-crypt: 1000 rounds and a few more.
    expect(digests.count - before).toBeGreaterThan(1000);
  });

  it('bounds SHA-crypt rounds, written or implicit, by shaCryptMaxRounds', async () => {
    const explicit = fixture('sha512crypt-mkpasswd-explicit-5000');
    const implicit = fixture('sha512crypt-mkpasswd-default-rounds');
    const tight = createPasswordHasher({ backend: 'native', pepper: false, limits: { shaCryptMaxRounds: 4999 } });
    const exact = createPasswordHasher({ backend: 'native', pepper: false, limits: { shaCryptMaxRounds: 5000 } });
    for (const f of [explicit, implicit, fixture('ldap-crypt-sha512-default')]) {
      expect(codeOf(() => tight.describe(f.hash))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
      expect((await exact.verify(f.hash, f.password)).ok).toBe(true);
    }
    expect(codeOf(() => tight.describe(fixture('sha512crypt-openssl-r1000-emoji').hash))).toBe('no error');
  });

  it('bounds phpass and Drupal log2 rounds by phpassMaxLog2Rounds', async () => {
    const wordpress = fixture('phpass-wordpress-hashpassword'); // $P$B: 2^13
    const drupal = fixture('drupal7-S-D-umlaut'); // $S$D: 2^15
    const updated = fixture('drupal7-U-S-9-md5'); // U$S$9: 2^11
    expect(codeOf(() => parse(wordpress.hash, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxLog2Rounds: 12 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(parse(wordpress.hash, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxLog2Rounds: 13 }).scheme).toBe('phpass');
    expect(codeOf(() => parse(drupal.hash, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxLog2Rounds: 14 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(codeOf(() => parse(updated.hash, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxLog2Rounds: 10 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    const exact = createPasswordHasher({ backend: 'native', pepper: false, limits: { phpassMaxLog2Rounds: 15 } });
    expect((await exact.verify(drupal.hash, drupal.password)).ok).toBe(true);
  });

  it('derives both bounds from the verify budget: SHA-crypt at its longest password, phpass as work', () => {
    const ms = DEPLOYED_VERIFY_BUDGET.timeMs * (DEPLOYED_VERIFY_BUDGET.memoryMiB / 1769);
    const limits = limitsForBudget(DEPLOYED_VERIFY_BUDGET, true);
    expect(limits.shaCryptMaxRounds).toBe(Math.floor(ms / 0.04));
    expect(limits.phpassMaxWork).toBe(Math.floor(ms / 0.00175));
    // The count is left to the work.
    expect(limits.phpassMaxLog2Rounds).toBeUndefined();
    // Default-rounds crypt hashes still fit the deployment.
    expect(limits.shaCryptMaxRounds).toBeGreaterThanOrEqual(5000);
    // Never below the formats' own minimums (phpass: 2^7 rounds at 4,096 bytes, 65 blocks), never above the defaults.
    expect(limitsForBudget({ timeMs: 1 }, false)).toMatchObject({ shaCryptMaxRounds: 1000, phpassMaxWork: 2 ** 7 * 65 });
    expect(limitsForBudget({ timeMs: 10_000_000 }, false)).toMatchObject({
      shaCryptMaxRounds: DEFAULT_STORED_HASH_LIMITS.shaCryptMaxRounds,
      phpassMaxWork: DEFAULT_STORED_HASH_LIMITS.phpassMaxWork,
    });
  });

  it.each([
    ['$1$saltsalt$', 'ERR_HASH_MALFORMED'],
    ['$1$', 'ERR_HASH_MALFORMED'],
    ['$apr1$saltsalt$yAAkm4libquA.ZWLHbSBq/$', 'ERR_HASH_MALFORMED'],
    ['$5$rounds=5000$', 'ERR_HASH_MALFORMED'],
    ['$6$rounds=5000$salt$', 'ERR_HASH_MALFORMED'],
    ['$6$sält$' + '.'.repeat(86), 'ERR_HASH_MALFORMED'],
    ['{SSHA}', 'ERR_HASH_MALFORMED'],
    ['{SMD5}' + 'A'.repeat(22) + '==', 'ERR_HASH_MALFORMED'],
    ['{CRYPT}$6$', 'ERR_HASH_MALFORMED'],
    ['{CRYPT}$2x$05$' + 'a'.repeat(53), 'ERR_HASH_UNSUPPORTED'],
    ['{CRYPT}$3$$8846f7eaee8fb117ad06bdd830b7586c', 'ERR_HASH_UNSUPPORTED'],
    ['$P$B', 'ERR_HASH_MALFORMED'],
    ['$H$9salt', 'ERR_HASH_MALFORMED'],
    ['$S$D' + 'é'.repeat(51), 'ERR_HASH_MALFORMED'],
    ['U$S$', 'ERR_HASH_MALFORMED'],
  ])('%s is refused: %s', (stored, code) => {
    expect(codeOf(() => parse(stored))).toBe(code);
  });
});

describe('phpass and Drupal are bounded by their rounds and the password given', () => {
  // 2^10 rounds of three 64-byte blocks: a $P$8 record verifies passwords of up to 167 bytes (the
  // 16-byte digest, the password and 9 bytes of MD5 padding), a $S$8 one, at two blocks of
  // SHA-512, up to 47 bytes (128 - 64 - 17).
  const limits = { phpassMaxWork: 2 ** 10 * 3 };
  const tight = createPasswordHasher({ backend: 'native', pepper: false, limits });

  it('verifies passwords up to the longest its record allows, and refuses a longer one before any hashing', async () => {
    for (const [algorithm, setting, longest, scheme] of [
      ['md5', '$P$8abcdefgh', 167, 'phpass'],
      ['sha512', '$S$8abcdefgh', 47, 'drupal7_sha512'],
    ] as const) {
      // Counted in UTF-8 bytes: 'ü' is two.
      const at = 'ü'.repeat(Math.floor(longest / 2)) + 'x'.repeat(longest % 2);
      const over = `${at}x`;
      expect(await tight.verify(stretched(algorithm, setting, at), at), scheme).toEqual({ ok: true, needsRehash: true, scheme });
      expect((await tight.verify(stretched(algorithm, setting, at), `${at.slice(0, -1)}y`)).ok, scheme).toBe(false);
      // Built for the longer password, so only the bound stops it from verifying.
      const record = stretched(algorithm, setting, over);
      const before = digests.count;
      await expect(tight.verify(record, over), scheme).rejects.toMatchObject({ code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
      await expect(tight.verify(await tight.wrap(record), over), scheme).rejects.toMatchObject({ code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
      expect(digests.count).toBe(before);
      // The record is sound: under the default bound the same password verifies.
      expect((await hasher.verify(record, over)).ok, scheme).toBe(true);
    }
  });

  it("answers a password over the original's own guard as the original does: a wrong one", async () => {
    const roomyTight = createPasswordHasher({ backend: 'native', pepper: false, limits, password: { maxBytes: 8192 } });
    expect(await roomyTight.verify(stretched('md5', '$P$8abcdefgh', 'pw'), 'x'.repeat(4097))).toEqual({ ok: false, needsRehash: false, scheme: 'phpass' });
    const drupal = stretched('sha512', '$S$8abcdefgh', 'pw');
    expect(await roomyTight.verify(drupal, 'x'.repeat(513))).toEqual({ ok: false, needsRehash: false, scheme: 'drupal7_sha512' });
  });

  it('refuses a record when parsed if even the empty password would cost more', () => {
    const phpass = stretched('md5', '$P$8abcdefgh', 'password');
    expect(parse(phpass, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxWork: 2 ** 10 }).scheme).toBe('phpass');
    expect(codeOf(() => parse(phpass, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxWork: 2 ** 10 - 1 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    const drupal = stretched('sha512', '$S$8abcdefgh', 'password');
    expect(parse(drupal, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxWork: 2 ** 10 * 2 }).scheme).toBe('drupal7_sha512');
    expect(codeOf(() => parse(drupal, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxWork: 2 ** 10 * 2 - 1 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
  });

  it('bounds U$ records by the hex MD5 they hash (32 bytes), whatever the password', async () => {
    const long = 'ü'.repeat(300);
    const stored = `U${stretched('sha512', '$S$8Uupdated', createHash('md5').update(long, 'utf8').digest('hex'))}`;
    expect(await tight.verify(stored, long)).toEqual({ ok: true, needsRehash: true, scheme: 'drupal7_sha512_md5' });
    expect(codeOf(() => parse(stored, { ...DEFAULT_STORED_HASH_LIMITS, phpassMaxWork: 2 ** 10 * 2 - 1 }))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
  });

  it('keeps every password up to 1,024 bytes (Drupal: 512) on each record a budget admitted before', async () => {
    const budgets: Array<[string, ReturnType<typeof limitsForBudget>, number]> = [
      // [name, limits, the log2 rounds admitted before at every password: max(7, floor(log2(ms / 0.03))), default 18]
      ['defaults', {}, 18],
      ['Lambda', limitsForBudget(DEPLOYED_VERIFY_BUDGET, true), 16],
      ['CLI', limitsForBudget(DEPLOYED_VERIFY_BUDGET, false), 17],
      ['Worker', limitsForBudget(ISOLATE_VERIFY_BUDGET, false), 15],
      ['1 ms', limitsForBudget({ timeMs: 1 }, false), 7],
    ];
    for (const [name, budget, log2] of budgets) {
      const work = { ...DEFAULT_STORED_HASH_LIMITS, ...budget }.phpassMaxWork;
      expect(longestInputWithin(md5, log2, work), name).toBeGreaterThanOrEqual(log2 === 7 ? 4096 : 1024);
      expect(longestInputWithin(sha512, log2, work), name).toBeGreaterThanOrEqual(512);
    }
    // And through a verify: 2^15, the Worker's bound before, at 1,024 bytes.
    const worker = createPasswordHasher({ backend: 'native', pepper: false, limits: limitsForBudget(ISOLATE_VERIFY_BUDGET, false) });
    const password = 'ä'.repeat(512);
    const record = stretched('md5', '$P$Dabcdefgh', password);
    expect((await worker.verify(record, password)).ok).toBe(true);
    expect((await worker.verify(record, `${password.slice(0, -1)}a`)).ok).toBe(false);
  });
});

describe('names', () => {
  it('reads LDAP scheme names case-insensitively, as OpenLDAP does', async () => {
    for (const [id, name] of [
      ['ldap-ssha-ascii', '{sSha}'],
      ['ldap-ssha512-ascii', '{ssha512}'],
      ['ldap-md5-ascii', '{md5}'],
      ['ldap-crypt-sha512-umlaut', '{Crypt}'],
    ] as const) {
      const f = fixture(id);
      const renamed = name + f.hash.slice(f.hash.indexOf('}') + 1);
      expect(await hasher.verify(renamed, f.password)).toEqual({ ok: true, needsRehash: true, scheme: f.scheme });
    }
  });

  it("leaves Spring's lower-case {sha256} with 80 hex digits and passlane's {ARGON2} to their schemes", () => {
    const spring = `{sha256}${'0123456789abcdef'.repeat(5)}`;
    const argon2 = `{ARGON2}$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`;
    for (const stored of [spring, argon2]) expect(UNIX_SCHEMES.some((scheme) => scheme.matches(stored))).toBe(false);
    expect(parse(argon2).scheme).toBe('argon2_raw');
    // The upper-case name is LDAP's, and its payload is base64.
    expect(UNIX_SCHEMES.some((scheme) => scheme.matches(spring.replace('{sha256}', '{SHA256}')))).toBe(true);
  });

  it('claims no other format, and each of its fixtures with exactly one scheme', () => {
    const others = ['$2b$04$' + 'a'.repeat(53), '$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$AAAAAAAA', 'pbkdf2_sha256$1$s$AA==', '$pbkdf2-sha256$1$AA$AA'];
    for (const stored of [...others, '{bcrypt}$2a$04$x', 'password', '$y$j9T$a$b', '$7$C6..../....']) {
      expect(UNIX_SCHEMES.filter((scheme) => scheme.matches(stored))).toHaveLength(0);
    }
    for (const f of [...file.hashes, ...file.longSaltHashes]) expect(UNIX_SCHEMES.filter((scheme) => scheme.matches(f.hash)), f.id).toHaveLength(1);
  });

  it('marks exactly the single-round LDAP digests as fast', () => {
    const single = /^ldap_s?(sha|sha256|sha384|sha512|md5)$/;
    const schemes = new Set<string>();
    for (const f of [...file.hashes, ...file.longSaltHashes]) {
      expect(hasher.describe(f.hash).fastDigest, f.id).toBe(single.test(f.scheme) ? true : undefined);
      schemes.add(f.scheme);
    }
    // Both kinds are present, so the check above sees each side.
    expect([...schemes].filter((s) => single.test(s))).toHaveLength(10);
    expect([...schemes].filter((s) => !single.test(s)).sort()).toEqual([
      'apr_md5_crypt',
      'drupal7_sha512',
      'drupal7_sha512_md5',
      'ldap_crypt_bcrypt',
      'ldap_crypt_md5',
      'ldap_crypt_sha256',
      'ldap_crypt_sha512',
      'md5_crypt',
      'phpass',
      'sha256_crypt',
      'sha512_crypt',
    ]);
  });
});

describe('passwords the originals refuse', () => {
  it.each(file.refusedByOriginal.map((f) => [f.id, f] as const))('%s does not verify', async (_id, f) => {
    const roomy = createPasswordHasher({ backend: 'native', pepper: false });
    expect(await roomy.verify(f.hash, f.password)).toEqual({ ok: false, needsRehash: false, scheme: f.scheme });
  });

  it('refuses a NUL in crypt passwords (C strings) without hashing, but hashes it in LDAP digests', async () => {
    const recorder = recordingBackend();
    const recorded = hasherWithBackend(recorder.backend);
    for (const id of ['sha512crypt-mkpasswd-explicit-5000', 'md5crypt-mkpasswd-ascii', 'ldap-crypt-md5-ascii', 'ldap-crypt-bcrypt-space', 'ldap-ssha-ascii']) {
      const f = fixture(id);
      expect((await recorded.verify(f.hash, f.password)).ok, id).toBe(true);
      const [digestsBefore, callsBefore] = [digests.count, recorder.totalCalls];
      expect((await recorded.verify(f.hash, `${f.password}\0tail`)).ok, id).toBe(false);
      // glibc would read "password" here; passlane refuses as libxcrypt, slapd and passlib do.
      const work = digests.count - digestsBefore + recorder.totalCalls - callsBefore;
      expect(work > 0, id).toBe(id.startsWith('ldap-ssha'));
    }
    // 511 bytes verify; libxcrypt stops there.
    const longest = fixture('sha512crypt-mkpasswd-511-bytes');
    expect(new TextEncoder().encode(longest.password)).toHaveLength(511);
    expect((await hasher.verify(longest.hash, longest.password)).ok).toBe(true);
  });

  // Drupal's and phpass's length guards, checked against hashes built with node:crypto (below):
  // one byte under the guard the construction verifies, so a refusal over it is the guard's.
  const roomy = createPasswordHasher({ backend: 'native', pepper: false, password: { maxBytes: 8192 } });

  it('checks the node:crypto construction against the originals', () => {
    const drupal = fixture('drupal7-S-D-512-bytes');
    expect(stretched('sha512', drupal.hash.slice(0, 12), drupal.password)).toBe(drupal.hash);
    const phpass = fixture('phpass-P-5-min-rounds');
    expect(stretched('md5', phpass.hash.slice(0, 12), phpass.password)).toBe(phpass.hash);
  });

  it('refuses Drupal passwords over 512 bytes, as _password_crypt does', async () => {
    const at = 'ä'.repeat(256);
    const over = `${at}x`;
    expect((await roomy.verify(stretched('sha512', '$S$7abcdefgh', at), at)).ok).toBe(true);
    expect(await roomy.verify(stretched('sha512', '$S$7abcdefgh', over), over)).toEqual({ ok: false, needsRehash: false, scheme: 'drupal7_sha512' });
  });

  it('refuses phpass passwords over 4096 bytes, as CheckPassword does', async () => {
    const at = 'x'.repeat(4096);
    const over = `${at}y`;
    expect((await roomy.verify(stretched('md5', '$P$5abcdefgh', at), at)).ok).toBe(true);
    expect((await roomy.verify(stretched('md5', '$P$5abcdefgh', over), over)).ok).toBe(false);
  });

  it('hashes the hex MD5 for U$ records, whatever the length', async () => {
    const long = 'ü'.repeat(300);
    const hex = createHash('md5').update(long, 'utf8').digest('hex');
    const stored = `U${stretched('sha512', '$S$7Uupdated', hex)}`;
    expect(await roomy.verify(stored, long)).toEqual({ ok: true, needsRehash: true, scheme: 'drupal7_sha512_md5' });
    expect((await roomy.verify(stored, hex)).ok).toBe(false);
  });

  it('refuses the empty password for every LDAP scheme, as lutil_passwd does', async () => {
    const salt = Buffer.from('salt');
    const ssha = `{SSHA}${Buffer.concat([createHash('sha1').update(salt).digest(), salt]).toString('base64')}`;
    const sha = `{SHA}${createHash('sha1').update('').digest('base64')}`;
    for (const stored of [ssha, sha]) expect((await hasher.verify(stored, '')).ok).toBe(false);
    // The same construction with a password verifies.
    const pw = Buffer.from('pw');
    expect((await hasher.verify(`{SSHA}${Buffer.concat([createHash('sha1').update(pw).update(salt).digest(), salt]).toString('base64')}`, 'pw')).ok).toBe(true);
  });
});

describe('LDAP values whose salt fills the tail', () => {
  it.each(file.longSaltHashes.map((f) => [f.id, f] as const))('%s verifies on both backends, and wrapped', async (_id, f) => {
    for (const backend of ['native', 'wasm'] as const) {
      const h = createPasswordHasher({ backend, pepper: false });
      expect(await h.verify(f.hash, f.password)).toEqual({ ok: true, needsRehash: true, scheme: f.scheme });
      expect((await h.verify(f.hash, f.wrongPassword)).ok).toBe(false);
    }
    const wrapped = await hasher.wrap(f.hash);
    expect(await hasher.verify(wrapped, f.password)).toEqual({ ok: true, needsRehash: true, scheme: `wrapped_${f.scheme}` });
    expect((await hasher.verify(wrapped, f.wrongPassword)).ok).toBe(false);
  });

  it('wrapping zeroes the digest bytes and keeps the salt', async () => {
    for (const f of [...file.longSaltHashes, fixture('ldap-ssha-ascii'), fixture('ldap-sha-ascii')]) {
      const wrapped = await hasher.wrap(f.hash);
      const head = wrapped.slice('$wrapped$'.length, wrapped.indexOf('$argon2id$'));
      const name = f.hash.slice(0, f.hash.indexOf('}') + 1);
      expect(head.startsWith(name)).toBe(true);
      const original = Buffer.from(f.hash.slice(name.length), 'base64');
      const kept = Buffer.from(head.slice(name.length), 'base64');
      const size = { ldap_ssha: 20, ldap_sha: 20, ldap_ssha512: 64, ldap_smd5: 16 }[f.scheme]!;
      expect(kept).toHaveLength(original.length);
      expect(kept.subarray(0, size).every((b) => b === 0)).toBe(true);
      expect(kept.subarray(size)).toEqual(original.subarray(size));
      expect(original.subarray(0, size).some((b) => b !== 0)).toBe(true);
    }
  });
});

describe('long computations', () => {
  it('let the event loop run between slices of rounds', async () => {
    const f = fixture('sha512crypt-mkpasswd-explicit-5000');
    // 60,000 rounds: several slices of 8192, well under the default bound.
    const parsed = parse(f.hash.replace('rounds=5000', 'rounds=60000'));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      await parsed.computeDigest(f.password, noContext);
    } finally {
      clearInterval(timer);
    }
    // Without yielding, no timer could fire while the digest runs (nothing else awaits in it).
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('computes the same digest for rounds=5000 written or implied', async () => {
    const explicit = parse(fixture('sha256crypt-mkpasswd-explicit-5000').hash);
    const implicit = parse(fixture('sha256crypt-mkpasswd-default-rounds').hash);
    expect(explicit.digest).toEqual(implicit.digest);
    expect(await explicit.computeDigest('password', noContext)).toEqual(implicit.digest);
  });
});
