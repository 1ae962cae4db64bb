import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPasswordHasher, DEFAULT_STORED_HASH_LIMITS } from '../packages/passlane/src/index.js';
import { aspnetIdentityScheme } from '../packages/passlane/src/schemes/aspnet-identity.js';
import { djangoScheme } from '../packages/passlane/src/schemes/django.js';
import { parseStoredHash } from '../packages/passlane/src/schemes/parse-stored-hash.js';
import { springScheme } from '../packages/passlane/src/schemes/spring.js';
import { werkzeugScheme } from '../packages/passlane/src/schemes/werkzeug.js';
import { codeOf, readFixtureFile } from './support/fixtures.js';
import { hasherWithBackend, recordingBackend } from './support/recording-backend.js';

// Werkzeug, Django's remaining hashers, ASP.NET Core Identity and Spring Security: the edge cases
// of each layout. Every fixture's plain verify runs in legacy-formats.test.ts.
const { file, fixture, hostile } = readFixtureFile('framework-hashes.json');

const hasher = createPasswordHasher({ backend: 'native', pepper: false });
const parse = (stored: string) => parseStoredHash(stored, DEFAULT_STORED_HASH_LIMITS);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('bounds and shape are checked before any hashing', () => {
  it.each([
    ['werkzeug-pbkdf2-1e9-iterations', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['werkzeug-pbkdf2-no-iterations', 'ERR_HASH_UNSUPPORTED'],
    ['werkzeug-pbkdf2-upper-hex', 'ERR_HASH_MALFORMED'],
    ['werkzeug-scrypt-n-2pow20', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['werkzeug-scrypt-n-not-pow2', 'ERR_HASH_MALFORMED'],
    ['django-scrypt-n-2pow20', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['django-scrypt-salt-first', 'ERR_HASH_MALFORMED'],
    ['django-sha1-upper-hex', 'ERR_HASH_MALFORMED'],
    ['aspnet-v3-iterations-1e9', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['aspnet-v3-many-blocks', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['aspnet-v3-unknown-prf', 'ERR_HASH_UNSUPPORTED'],
    ['aspnet-v3-salt-8', 'ERR_HASH_MALFORMED'],
    ['spring-pbkdf2-annotated-1e9', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-pbkdf2-annotated-many-blocks', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-pbkdf2-annotated-md5', 'ERR_HASH_UNSUPPORTED'],
    ['spring-pbkdf2-factory-wrong-length', 'ERR_HASH_MALFORMED'],
    ['spring-scrypt-n-2pow20', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-scrypt-log2n-65535', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-argon2-m-4GiB', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-bcrypt-cost-31', 'ERR_HASH_PARAMS_OUT_OF_BOUNDS'],
    ['spring-scrypt-unknown-annotation', 'ERR_HASH_UNSUPPORTED'],
  ])('%s: %s, and no digest of any kind is computed', async (id, code) => {
    // PBKDF2 and SHA digests go through Web Crypto, the rest through the backend: watch both.
    const deriveBits = vi.spyOn(crypto.subtle, 'deriveBits');
    const digest = vi.spyOn(crypto.subtle, 'digest');
    const recorder = recordingBackend();
    await expect(hasherWithBackend(recorder.backend).verify(hostile(id), 'correct horse battery staple')).rejects.toMatchObject({ code });
    expect(recorder.totalCalls + deriveBits.mock.calls.length + digest.mock.calls.length).toBe(0);
  });

  it('weighs PBKDF2 by output blocks: a 32-byte SHA-1 subkey at 5000 iterations is 10000 of work', async () => {
    const stored = fixture('aspnet-identity-v3-sha1').hash;
    const under = createPasswordHasher({ backend: 'native', pepper: false, limits: { pbkdf2MaxIterations: 9999 } });
    const at = createPasswordHasher({ backend: 'native', pepper: false, limits: { pbkdf2MaxIterations: 10_000 } });
    expect(codeOf(() => under.describe(stored))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(await at.verify(stored, fixture('aspnet-identity-v3-sha1').password)).toMatchObject({ ok: true });
  });

  it('reads the configured limits, not fixed ones', () => {
    const strict = createPasswordHasher({ pepper: false, limits: { pbkdf2MaxIterations: 100_000, scryptMaxN: 2 ** 14 } });
    expect(codeOf(() => strict.describe(fixture('spring-pbkdf2-factory-default').hash))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(codeOf(() => strict.describe(fixture('werkzeug-pbkdf2_sha256-default').hash))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(codeOf(() => strict.describe(fixture('werkzeug-scrypt-default').hash))).toBe('ERR_HASH_PARAMS_OUT_OF_BOUNDS');
    expect(strict.describe(fixture('django-scrypt-default').hash).scheme).toBe('django_scrypt');
    expect(strict.describe(fixture('aspnet-identity-v3-sha512-default').hash).scheme).toBe('aspnet_identity_v3_sha512');
  });
});

describe('Werkzeug', () => {
  it('refuses pbkdf2 without iterations, and verifies once the iterations are written out', async () => {
    const { hash, password } = fixture('werkzeug-pbkdf2_sha256-default');
    expect(hash.startsWith('pbkdf2:sha256:260000$')).toBe(true);
    const bare = hash.replace(':260000$', '$');
    await expect(hasher.verify(bare, password)).rejects.toMatchObject({ code: 'ERR_HASH_UNSUPPORTED', message: expect.stringMatching(/iterations/) });
    expect(await hasher.verify(hash, password)).toEqual({ ok: true, needsRehash: true, scheme: 'werkzeug_pbkdf2_sha256' });
  });

  it('uses the salt string, so a changed salt character changes the digest', async () => {
    const { hash, password } = fixture('werkzeug-pbkdf2_sha256-umlaut');
    const [method, salt, hex] = hash.split('$') as [string, string, string];
    const otherSalt = `${method}$${salt.slice(0, -1)}${salt.endsWith('d') ? 'e' : 'd'}$${hex}`;
    expect((await hasher.verify(otherSalt, password)).ok).toBe(false);
  });

  it('claims only its own methods', () => {
    expect(werkzeugScheme.matches('pbkdf2:sha256:1000$s$00')).toBe(true);
    expect(werkzeugScheme.matches('scrypt:1024:8:1$s$00')).toBe(true);
    expect(werkzeugScheme.matches('pbkdf2_sha256$1000$s$AA==')).toBe(false);
    expect(werkzeugScheme.matches('scrypt$16384$s$8$1$AA==')).toBe(false);
  });
});

describe("Django's unsalted MD5", () => {
  const bare = fixture('django-unsalted_md5-bare');

  it('is exactly 32 lower-case hex digits with no prefix', () => {
    expect(djangoScheme.matches(bare.hash)).toBe(true);
    expect(parse(bare.hash).scheme).toBe('django_unsalted_md5');
    for (const notMd5 of [bare.hash.toUpperCase(), bare.hash.slice(1), `${bare.hash}0`, `${bare.hash.slice(1)}g`, `${bare.hash.slice(1)}$`]) {
      expect(djangoScheme.matches(notMd5)).toBe(false);
    }
    // identify_hasher would call any 32 characters without `$` unsalted_md5, but only hex ever verified.
    expect(djangoScheme.matches('abcdefghijklmnopqrstuvwxyzABCDEF')).toBe(false);
  });

  it('verifies the same digest bare and as md5$$, and the 37-character form is strict', async () => {
    expect(await hasher.verify(`md5$$${bare.hash}`, bare.password)).toEqual({ ok: true, needsRehash: true, scheme: 'django_unsalted_md5' });
    expect(codeOf(() => parse(`md5$$${bare.hash.slice(1)}`))).toBe('ERR_HASH_MALFORMED');
    expect(codeOf(() => parse(`md5$$${bare.hash.toUpperCase()}`))).toBe('ERR_HASH_MALFORMED');
  });

  it('is salted MD5 once a salt is present, and sha1$$ is unsalted SHA-1', () => {
    expect(parse(fixture('django-md5-ascii').hash).scheme).toBe('django_md5');
    expect(parse(fixture('django-unsalted_sha1').hash).scheme).toBe('django_unsalted_sha1');
    expect(parse(fixture('django-sha1-ascii').hash).scheme).toBe('django_sha1');
  });
});

describe('fastDigest', () => {
  const FAST = new Set(['django_sha1', 'django_md5', 'django_unsalted_md5', 'django_unsalted_sha1']);

  it.each(file.hashes.map((f) => [f.id, f] as const))('%s', (_id, f) => {
    const parsed = parse(f.hash);
    expect(parsed.scheme).toBe(f.scheme);
    expect(parsed.fastDigest === true).toBe(FAST.has(f.scheme));
    // Only bcrypt reads part of the password.
    expect(parsed.inputLimitBytes).toBe(f.scheme === 'spring_bcrypt' ? 72 : undefined);
  });

  it('is set for every fast scheme (the fixtures hold each one)', () => {
    expect(new Set(file.hashes.map((f) => f.scheme).filter((s) => FAST.has(s)))).toEqual(FAST);
  });

  it('sizes scrypt for the limiter from N and r', () => {
    expect(parse(fixture('werkzeug-scrypt-default').hash).memoryKiB).toBe(32 * 1024);
    expect(parse(fixture('django-scrypt-default').hash).memoryKiB).toBe(16 * 1024);
    expect(parse(fixture('spring-scrypt-factory-default').hash).memoryKiB).toBe(16 * 1024);
  });
});

describe('Spring pbkdf2 ids name exactly one PBKDF2', () => {
  const payloadOf = (stored: string) => stored.slice(stored.indexOf('}') + 1);

  it('{pbkdf2} is the factory encoder: SHA1, 185000 iterations, 256-bit hash, 8-byte salt', async () => {
    const f = fixture('spring-pbkdf2-factory-default');
    const explicit = `{pbkdf2@SHA1,185000,256}${payloadOf(f.hash)}`;
    expect(await hasher.verify(explicit, f.password)).toEqual({ ok: true, needsRehash: true, scheme: 'spring_pbkdf2_sha1' });
    // Without the width, SHA1 means a 160-bit hash, so the same bytes split differently: no match.
    expect((await hasher.verify(`{pbkdf2@SHA1,185000}${payloadOf(f.hash)}`, f.password)).ok).toBe(false);
  });

  it('{pbkdf2@SpringSecurity_v5_8} is SHA256, 310000 iterations, 16-byte salt', async () => {
    const f = fixture('spring-pbkdf2-v5_8-default');
    expect((await hasher.verify(`{pbkdf2@SHA256,310000}${payloadOf(f.hash)}`, f.password)).ok).toBe(true);
    expect((await hasher.verify(`{pbkdf2@SHA256,310001}${payloadOf(f.hash)}`, f.password)).ok).toBe(false);
    // The factory ids fix the salt length too.
    expect(codeOf(() => parse(`{pbkdf2}${payloadOf(f.hash)}`))).toBe('ERR_HASH_MALFORMED');
  });

  it.each(['spring-pbkdf2-factory-default', 'spring-pbkdf2-annotated-sha512', 'spring-pbkdf2-annotated-sha1-hashwidth-base64'])(
    '%s runs one PBKDF2 per verify, right or wrong',
    async (id) => {
      const f = fixture(id);
      const deriveBits = vi.spyOn(crypto.subtle, 'deriveBits');
      expect((await hasher.verify(f.hash, f.password)).ok).toBe(true);
      expect((await hasher.verify(f.hash, f.wrongPassword)).ok).toBe(false);
      expect(deriveBits).toHaveBeenCalledTimes(2);
    },
  );

  it('reads base64 only when the id says so', () => {
    const f = fixture('spring-pbkdf2-annotated-sha1-hashwidth-base64');
    expect(codeOf(() => parse(f.hash.replace(',base64}', '}')))).toBe('ERR_HASH_MALFORMED');
  });

  it('matches lower-case Spring ids only: upper-case names are LDAP or passlane', () => {
    for (const id of ['{SHA256}', '{PBKDF2}', '{BCRYPT}', '{ARGON2}', '{SCRYPT}', '{Sha256}', '{noop}', '{MD5}', '{SHA-256}']) {
      expect(springScheme.matches(`${id}abc`)).toBe(false);
    }
    const argon2 = fixture('spring-argon2-factory-default').hash;
    expect(parse(argon2.replace('{argon2}', '{ARGON2}')).scheme).toBe('argon2_raw');
    expect(parse(argon2).scheme).toBe('spring_argon2');
  });
});

describe('ASP.NET Core Identity', () => {
  it('claims only base64 shaped like its v2 and v3 blobs', () => {
    expect(aspnetIdentityScheme.matches(fixture('aspnet-identity-v2').hash)).toBe(true);
    expect(aspnetIdentityScheme.matches(fixture('aspnet-identity-v3-sha512-default').hash)).toBe(true);
    // DES crypt, a bare base64 SHA-1, a v2-length blob not led by 00, cut padding.
    const others = ['AQAAAAAAAAAAA', Buffer.alloc(20, 7).toString('base64'), `B${fixture('aspnet-identity-v2').hash.slice(1)}`];
    for (const other of [...others, hostile('aspnet-v3-bad-padding'), hostile('aspnet-v3-44-bytes')]) {
      expect(aspnetIdentityScheme.matches(other)).toBe(false);
    }
    expect(codeOf(() => parse(hostile('aspnet-v3-salt-length-eats-subkey')))).toBe('ERR_HASH_MALFORMED');
  });
});

describe('records whose digest is not a trailing field keep their salt when wrapped', () => {
  it.each([
    ['aspnet-identity-v3-sha256-salt32-subkey64', (s: string) => s],
    ['aspnet-identity-v2', (s: string) => s],
    ['spring-pbkdf2-annotated-sha1-hashwidth-base64', (s: string) => s.slice(s.indexOf('}') + 1)],
    ['spring-sha256-umlaut', (s: string) => s.slice(s.indexOf('}') + 1)],
  ])('%s', async (id, payloadOf) => {
    const f = fixture(id);
    const wrapped = await hasher.wrap(f.hash);
    const inner = wrapped.slice('$wrapped$'.length, wrapped.indexOf('$argon2id$'));
    const before = payloadOf(f.hash);
    const after = payloadOf(inner);
    expect(after).not.toBe(before);
    expect(after.length).toBe(before.length);
    // The zeroed record is still a record of the same scheme: it parses, salt and parameters intact.
    expect(parse(inner).scheme).toBe(f.scheme);
    expect(await hasher.verify(wrapped, f.password)).toEqual({ ok: true, needsRehash: true, scheme: `wrapped_${f.scheme}` });
    expect((await hasher.verify(wrapped, f.wrongPassword)).ok).toBe(false);
  });

  it('ASP.NET: header and salt survive byte for byte, the subkey is all zero', async () => {
    const f = fixture('aspnet-identity-v3-sha256-salt32-subkey64');
    const wrapped = await hasher.wrap(f.hash);
    const original = Buffer.from(f.hash, 'base64');
    const zeroed = Buffer.from(wrapped.slice('$wrapped$'.length, wrapped.indexOf('$argon2id$')), 'base64');
    expect(zeroed.subarray(0, 13 + 32)).toEqual(original.subarray(0, 13 + 32));
    expect([...zeroed.subarray(13 + 32)]).toEqual(new Array(64).fill(0));
    expect(aspnetIdentityScheme.matches(zeroed.toString('base64'))).toBe(true);
  });

  it.each(['django-sha1-umlaut', 'django-md5-emoji', 'django-unsalted_sha1', 'django-unsalted_md5-bare'])(
    'fast digest %s wraps without its digest and still verifies',
    async (id) => {
      const f = fixture(id);
      const wrapped = await hasher.wrap(f.hash);
      const hex = f.hash.slice(f.hash.lastIndexOf('$') + 1);
      expect(wrapped).not.toContain(hex);
      expect(wrapped.startsWith(`$wrapped$${f.hash.slice(0, f.hash.length - hex.length)}${'0'.repeat(hex.length)}$argon2id$`)).toBe(true);
      expect(await hasher.verify(wrapped, f.password)).toEqual({ ok: true, needsRehash: true, scheme: `wrapped_${f.scheme}` });
      expect((await hasher.verify(wrapped, f.wrongPassword)).ok).toBe(false);
    },
  );
});
