import { describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../packages/passlane/src/index.js';
import { legacyFixtures } from './support/fixtures.js';

const native = createPasswordHasher({ backend: 'native', pepper: false });
const wasm = createPasswordHasher({ backend: 'wasm', pepper: false });
// Foreign argon2 PHC strings are kept as `{ARGON2}` + PHC (raw bytes), as import writes them.
const asStored = (hash: string) => (hash.startsWith('$argon2') ? `{ARGON2}${hash}` : hash);

describe('wrapping legacy records without their passwords', () => {
  it.each(legacyFixtures.hashes.map((f) => [f.id, f] as const))('%s', async (_id, fixture) => {
    const legacy = asStored(fixture.hash);
    const wrapped = await native.wrap(legacy);
    const scheme = `wrapped_${(await native.verify(legacy, fixture.password)).scheme}`;

    expect(wrapped).toMatch(/^\$wrapped\$.+\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    // A wrapped fast digest says so, so the rehash job keeps counting it in its first pass.
    expect(native.describe(wrapped)).toEqual({ scheme, parameters: 'v=19,m=19456,t=2,p=1', ...(native.describe(legacy).fastDigest && { wrapsFastDigest: true }) });
    // The crackable legacy digest is gone; only its salt and parameters remain.
    expect(wrapped).not.toContain(native.describe(legacy).scheme === 'bcrypt' ? legacy.slice(-31) : legacy.slice(legacy.lastIndexOf('$') + 1));
    expect(await native.verify(wrapped, fixture.password)).toEqual({ ok: true, needsRehash: true, scheme });
    expect((await native.verify(wrapped, fixture.wrongPassword)).ok).toBe(fixture.wrongPasswordMatches === true);
    expect(native.needsRehash(wrapped)).toBe(true);
  });

  it('wrapped on one backend verifies on the other', async () => {
    for (const fixture of legacyFixtures.hashes.filter((f) => /^(bcrypt|django_pbkdf2_sha256|passlib_scrypt)$/.test(f.scheme)).slice(0, 6)) {
      const wrapped = await native.wrap(asStored(fixture.hash));
      expect((await wasm.verify(wrapped, fixture.password)).ok).toBe(true);
    }
  });

  it('refuses to wrap twice, to wrap peppered values, and parses wrapped values strictly', async () => {
    const bcrypt = legacyFixtures.hashes.find((f) => f.scheme === 'bcrypt')!;
    const wrapped = await native.wrap(bcrypt.hash);
    await expect(native.wrap(wrapped)).rejects.toMatchObject({ code: 'ERR_HASH_UNSUPPORTED' });
    const peppered = createPasswordHasher({ pepper: { currentKeyId: 'k1', keys: { k1: new Uint8Array(32) } } });
    await expect(peppered.wrap(await peppered.hash('correct horse battery staple'))).rejects.toMatchObject({ code: 'ERR_HASH_UNSUPPORTED' });
    // A wrapped record that still carries the legacy digest is refused, not verified.
    const withDigest = wrapped.replace('.'.repeat(31), bcrypt.hash.slice(-31));
    expect(withDigest).not.toBe(wrapped);
    await expect(native.verify(withDigest, bcrypt.password)).rejects.toMatchObject({ code: 'ERR_HASH_MALFORMED' });
    await expect(native.verify('$wrapped$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$c2FsdHNhbHQ', 'x')).rejects.toMatchObject({
      code: 'ERR_HASH_MALFORMED',
    });
    await expect(native.verify(wrapped.replace('m=19456', 'm=4194304'), 'x')).rejects.toMatchObject({
      code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS',
    });
    await expect(native.verify(`$wrapped$${wrapped}`, 'x')).rejects.toMatchObject({ code: 'ERR_HASH_MALFORMED' });
  });
});

describe('wrapped records under a pepper', () => {
  const key = (fill: number) => new Uint8Array(32).fill(fill);
  const k1 = createPasswordHasher({ pepper: { currentKeyId: 'k1', keys: { k1: key(1) } } });
  const k2 = createPasswordHasher({ pepper: { currentKeyId: 'k2', keys: { k2: key(2), k1: key(1) } } });
  const k2Only = createPasswordHasher({ pepper: { currentKeyId: 'k2', keys: { k2: key(2) } } });

  it('are sealed like new hashes, so a stolen table alone cannot test guesses against them', async () => {
    const bcrypt = legacyFixtures.hashes.find((f) => f.scheme === 'bcrypt' && !f.wrongPasswordMatches)!;
    const sealed = await k1.wrap(bcrypt.hash);
    expect(sealed).toMatch(/^\$pepper\$v=1,k=k1\$wrapped\$\$2b\$/);
    const plain = await native.wrap(bcrypt.hash);
    // The argon2id tag is sealed: the plain tag's length does not fit what is stored.
    expect(sealed.slice(sealed.lastIndexOf('$') + 1).length).toBeGreaterThan(plain.slice(plain.lastIndexOf('$') + 1).length);
    expect(k1.describe(sealed)).toEqual({ scheme: 'wrapped_bcrypt', parameters: 'v=19,m=19456,t=2,p=1', pepperKeyId: 'k1' });
    expect(await k1.verify(sealed, bcrypt.password)).toEqual({ ok: true, needsRehash: true, scheme: 'wrapped_bcrypt' });
    expect((await k1.verify(sealed, bcrypt.wrongPassword)).ok).toBe(false);
    await expect(native.verify(sealed, bcrypt.password)).rejects.toMatchObject({ code: 'ERR_OPTIONS_INVALID' });

    // Rotation moves them to a new key without the password, and seals unsealed ones.
    const underK2 = await k2.rotatePepper(sealed);
    expect(k2Only.describe(underK2).pepperKeyId).toBe('k2');
    expect((await k2Only.verify(underK2, bcrypt.password)).ok).toBe(true);
    expect((await k2Only.verify(await k2.rotatePepper(plain), bcrypt.password)).ok).toBe(true);
  });
});
