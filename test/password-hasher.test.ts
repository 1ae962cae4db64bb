import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createPasswordHasher,
  HashParametersOutOfBoundsError,
  InvalidOptionsError,
  InvalidPasswordError,
  PasswordTooLongError,
  PasswordTooShortError,
} from '../packages/passlane/src/index.js';
import { hasherWithBackend, recordingBackend } from './support/recording-backend.js';

const PASSWORD = 'correct horse battery staple';

describe('hash and verify', () => {
  const hasher = createPasswordHasher({ pepper: false });

  it('writes argon2id PHC strings at OWASP parameters with a 16-byte salt and 32-byte tag', async () => {
    const stored = await hasher.hash(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hasher.hash(PASSWORD)).not.toBe(stored);
    expect(await hasher.verify(stored, PASSWORD)).toEqual({ ok: true, needsRehash: false, scheme: 'argon2id' });
    expect(hasher.needsRehash(stored)).toBe(false);
  });

  it('returns ok: false for wrong passwords and never throws for them', async () => {
    const stored = await hasher.hash(PASSWORD);
    for (const wrong of ['', ' ', PASSWORD.toUpperCase(), `${PASSWORD} `, 'ü'.repeat(300), '\u0000']) {
      expect(await hasher.verify(stored, wrong)).toEqual({ ok: false, needsRehash: false, scheme: 'argon2id' });
    }
  });

  it('normalises with NFKC, so composed, decomposed and compatibility forms match', async () => {
    const stored = await hasher.hash('Cafe\u0301-ｐａｓｓ');
    expect((await hasher.verify(stored, 'Café-pass')).ok).toBe(true);
    expect((await hasher.verify(stored, 'Cafe-pass')).ok).toBe(false);
  });

  it('accepts 64 characters of any kind and counts length in code points', async () => {
    const emoji = '🔑'.repeat(64); // 256 UTF-8 bytes
    expect((await hasher.verify(await hasher.hash(emoji), emoji)).ok).toBe(true);
    await expect(hasher.hash('🔑'.repeat(7))).rejects.toBeInstanceOf(PasswordTooShortError);
    await expect(hasher.hash('🔑'.repeat(8))).resolves.toMatch(/^\$argon2id\$/);
  });

  it('rejects too short, too long and non-string passwords with typed errors', async () => {
    await expect(hasher.hash('short')).rejects.toMatchObject({ code: 'ERR_PASSWORD_TOO_SHORT' });
    await expect(hasher.hash('x'.repeat(1025))).rejects.toMatchObject({ code: 'ERR_PASSWORD_TOO_LONG' });
    await expect(hasher.hash(42 as unknown as string)).rejects.toBeInstanceOf(InvalidPasswordError);
    // NFKC can expand: U+FDFA becomes 18 characters, so 60 of them pass the first bound but not the second.
    await expect(hasher.hash('\uFDFA'.repeat(60))).rejects.toBeInstanceOf(PasswordTooLongError);
  });

  it('refuses new passwords with lone surrogates, which UTF-8 would turn into U+FFFD', async () => {
    await expect(hasher.hash('correct\uD800horse')).rejects.toBeInstanceOf(InvalidPasswordError);
    await expect(hasher.hash('correct\uDFFFhorse')).rejects.toBeInstanceOf(InvalidPasswordError);
    // A password that just verified (raw bytes, so already U+FFFD in the old hash) still moves on.
    await expect(hasher.hash('correct\uD800horse', { upgrade: true })).resolves.toMatch(/^\$argon2id\$/);
  });

  it('does not promise a rehash for a legacy password that NFKC expands past the byte bound', async () => {
    // 180 UTF-8 bytes as typed (what Django hashed), about 2 KB after NFKC: hash() must refuse it.
    const password = '\uFDFA'.repeat(60);
    const salt = 'abcdefghijkl';
    const digest = pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64');
    const legacy = `pbkdf2_sha256$1000$${salt}$${digest}`;
    expect(await hasher.verify(legacy, password)).toEqual({ ok: true, needsRehash: false, scheme: 'django_pbkdf2_sha256' });
    await expect(hasher.hash(password, { upgrade: true })).rejects.toBeInstanceOf(PasswordTooLongError);
    // An ordinary legacy password is still flagged.
    const plain = `pbkdf2_sha256$1000$${salt}$${pbkdf2Sync(PASSWORD, salt, 1000, 32, 'sha256').toString('base64')}`;
    expect(await hasher.verify(plain, PASSWORD)).toEqual({ ok: true, needsRehash: true, scheme: 'django_pbkdf2_sha256' });
  });

  it('refuses an absurd password before any hashing, in hash and in verify', async () => {
    const recorder = recordingBackend();
    const counted = hasherWithBackend(recorder.backend);
    const stored = await counted.hash(PASSWORD);
    const before = recorder.totalCalls;
    const huge = 'a'.repeat(10 * 1024 * 1024);
    await expect(counted.hash(huge)).rejects.toBeInstanceOf(PasswordTooLongError);
    await expect(counted.verify(stored, huge)).rejects.toBeInstanceOf(PasswordTooLongError);
    await expect(counted.verifyDummy(huge)).rejects.toBeInstanceOf(PasswordTooLongError);
    expect(recorder.totalCalls).toBe(before);
  });
});

describe('policy', () => {
  it('refuses parameters weaker than every row of OWASP table unless overridden', () => {
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 19455 } })).toThrow(InvalidOptionsError);
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 47104, passes: 1 } })).not.toThrow();
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 7168, passes: 5 } })).not.toThrow();
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 7168, passes: 4 } })).toThrow(/OWASP/);
    expect(() => createPasswordHasher({ argon2: { saltLength: 8 } })).toThrow(InvalidOptionsError);
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 64, passes: 1 }, allowWeakParameters: true })).not.toThrow();
    expect(() => createPasswordHasher({ argon2: { lanes: 0 } })).toThrow(InvalidOptionsError);
    expect(() => createPasswordHasher({ argon2: { memoryKiB: 1.5 } })).toThrow(InvalidOptionsError);
  });

  it('flags hashes made under other parameters for rehash, and only after a successful verify', async () => {
    const old = createPasswordHasher({ pepper: false, argon2: { memoryKiB: 12288, passes: 3 } });
    const current = createPasswordHasher({ pepper: false });
    const stored = await old.hash(PASSWORD);
    expect(current.needsRehash(stored)).toBe(true);
    expect(old.needsRehash(stored)).toBe(false);
    expect(await current.verify(stored, PASSWORD)).toEqual({ ok: true, needsRehash: true, scheme: 'argon2id' });
    expect(await current.verify(stored, 'wrong password')).toEqual({ ok: false, needsRehash: false, scheme: 'argon2id' });
  });

  it('flags argon2i, argon2d, v=16 and other tag lengths for rehash', () => {
    const hasher = createPasswordHasher({ pepper: false });
    const salt = 'c2FsdHNhbHRzYWx0c2FsdA';
    const tag32 = 'A'.repeat(43);
    expect(hasher.needsRehash(`$argon2id$v=19$m=19456,t=2,p=1$${salt}$${tag32}`)).toBe(false);
    expect(hasher.needsRehash(`$argon2id$v=19$m=19456,p=1,t=2$${salt}$${tag32}`)).toBe(false);
    expect(hasher.needsRehash(`$argon2i$v=19$m=19456,t=2,p=1$${salt}$${tag32}`)).toBe(true);
    expect(hasher.needsRehash(`$argon2id$v=16$m=19456,t=2,p=1$${salt}$${tag32}`)).toBe(true);
    expect(hasher.needsRehash(`$argon2id$m=19456,t=2,p=1$${salt}$${tag32}`)).toBe(true);
    expect(hasher.needsRehash(`$argon2id$v=19$m=19456,t=2,p=1$${salt}$${'A'.repeat(22)}`)).toBe(true);
    expect(hasher.needsRehash(`{ARGON2}$argon2id$v=19$m=19456,t=2,p=1$${salt}$${tag32}`)).toBe(true);
  });
});

describe('hostile stored hashes', async () => {
  const { legacyFixtures } = await import('./support/fixtures.js');

  it.each(legacyFixtures.hostile.map((f) => [f.id, f] as const))('%s is refused before any hashing', async (_id, fixture) => {
    const recorder = recordingBackend();
    const hasher = hasherWithBackend(recorder.backend);
    const started = performance.now();
    const error = await hasher.verify(fixture.hash, PASSWORD).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: expect.stringMatching(/^ERR_HASH_(UNSUPPORTED|MALFORMED|PARAMS_OUT_OF_BOUNDS)$/) });
    expect(() => hasher.needsRehash(fixture.hash)).toThrow();
    expect(recorder.totalCalls).toBe(0);
    // Generous: refusing is a parse, so anything near a second means work was done.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('names the bound that was exceeded', async () => {
    const hasher = createPasswordHasher({ pepper: false });
    await expect(hasher.verify('$2b$31$' + 'a'.repeat(53), PASSWORD)).rejects.toThrow(HashParametersOutOfBoundsError);
    await expect(hasher.verify('$2b$31$' + 'a'.repeat(53), PASSWORD)).rejects.toThrow(/bcrypt cost=31/);
  });
});

describe('describe', () => {
  it('names scheme, parameters and pepper key id without secrets', async () => {
    const hasher = createPasswordHasher({ pepper: false });
    const stored = await hasher.hash(PASSWORD);
    expect(hasher.describe(stored)).toEqual({ scheme: 'argon2id', parameters: 'v=19,m=19456,t=2,p=1' });
    expect(hasher.describe('$2b$04$' + 'a'.repeat(53))).toEqual({ scheme: 'bcrypt' });
    const peppered = createPasswordHasher({ pepper: { currentKeyId: 'k1', keys: { k1: new Uint8Array(32) } } });
    expect(peppered.describe(await peppered.hash(PASSWORD))).toEqual({
      scheme: 'argon2id',
      parameters: 'v=19,m=19456,t=2,p=1',
      pepperKeyId: 'k1',
    });
  });
});
