import { describe, expect, it } from 'vitest';
import { createPasswordHasher, InvalidOptionsError, PepperKeyError } from '../packages/passlane/src/index.js';
import { ConfigError } from '../packages/server/src/config/config-error.js';
import { readPepperKeys } from '../packages/server/src/config/hasher-config.js';
import { encodeBase64Padded } from '../packages/passlane/src/encoding.js';

const key = (fill: number) => encodeBase64Padded(new Uint8Array(32).fill(fill));
const PASSWORD = 'correct horse battery staple';

describe('pepper', () => {
  const k1Only = createPasswordHasher({ pepper: { currentKeyId: 'k1', keys: { k1: key(1) } } });
  const k2Current = createPasswordHasher({ pepper: { currentKeyId: 'k2', keys: { k2: key(2), k1: key(1) } } });
  const k2Only = createPasswordHasher({ pepper: { currentKeyId: 'k2', keys: { k2: key(2) } } });
  const noPepper = createPasswordHasher({ pepper: false });

  it('seals the argon2 tag under the key id, keeping parameters readable', async () => {
    const stored = await k1Only.hash(PASSWORD);
    expect(stored).toMatch(/^\$pepper\$v=1,k=k1\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]+$/);
    expect(await k1Only.verify(stored, PASSWORD)).toEqual({ ok: true, needsRehash: false, scheme: 'argon2id' });
    expect((await k1Only.verify(stored, 'wrong password')).ok).toBe(false);
    expect(k1Only.needsRehash(stored)).toBe(false);
  });

  it('rotates to a new key without the password, and the old key can then be dropped', async () => {
    const underK1 = await k1Only.hash(PASSWORD);
    expect(k2Current.needsRehash(underK1)).toBe(true);
    expect(await k2Current.verify(underK1, PASSWORD)).toEqual({ ok: true, needsRehash: true, scheme: 'argon2id' });

    const underK2 = await k2Current.rotatePepper(underK1);
    expect(underK2.startsWith('$pepper$v=1,k=k2$')).toBe(true);
    expect(k2Current.needsRehash(underK2)).toBe(false);
    expect((await k2Only.verify(underK2, PASSWORD)).ok).toBe(true);
    expect((await k2Only.verify(underK2, 'wrong password')).ok).toBe(false);
    await expect(k2Only.verify(underK1, PASSWORD)).rejects.toBeInstanceOf(PepperKeyError);
  });

  it('seals existing un-peppered argon2 hashes, and flags them for rehash until then', async () => {
    const plain = await noPepper.hash(PASSWORD);
    expect(k1Only.needsRehash(plain)).toBe(true);
    expect((await k1Only.verify(plain, PASSWORD)).ok).toBe(true);
    const sealed = await k1Only.rotatePepper(plain);
    expect((await k1Only.verify(sealed, PASSWORD)).ok).toBe(true);
    await expect(k1Only.rotatePepper('$2b$04$' + 'a'.repeat(53))).rejects.toMatchObject({ code: 'ERR_HASH_UNSUPPORTED' });
  });

  it('refuses tampered records and sealed tags moved onto other parameters', async () => {
    const stored = await k1Only.hash(PASSWORD);
    const lastChar = stored.at(-2) === 'A' ? 'B' : 'A';
    const tampered = stored.slice(0, -2) + lastChar + stored.slice(-1);
    await expect(k1Only.verify(tampered, PASSWORD)).rejects.toBeInstanceOf(PepperKeyError);
    const moved = stored.replace('m=19456,t=2', 'm=19456,t=3');
    await expect(k1Only.verify(moved, PASSWORD)).rejects.toBeInstanceOf(PepperKeyError);
    const relabelled = stored.replace('k=k1', 'k=k2');
    await expect(k2Current.verify(relabelled, PASSWORD)).rejects.toBeInstanceOf(PepperKeyError);
    await expect(noPepper.verify(stored, PASSWORD)).rejects.toBeInstanceOf(InvalidOptionsError);
  });

  it('reads keys from PASSLANE_PEPPER_KEYS (the server config), first one current, and validates them at start-up', () => {
    expect(readPepperKeys({ PASSLANE_PEPPER_KEYS: `k2:${key(2)}, k1:${key(1)}` })).toEqual({
      currentKeyId: 'k2',
      keys: { k2: key(2), k1: key(1) },
    });
    expect(readPepperKeys({})).toBeUndefined();
    expect(() => createPasswordHasher({ pepper: readPepperKeys({ PASSLANE_PEPPER_KEYS: 'k1:c2hvcnQ=' }) })).toThrow(/32 bytes/);
    expect(() => readPepperKeys({ PASSLANE_PEPPER_KEYS: 'no-colon' })).toThrow(ConfigError);
    expect(() => readPepperKeys({ PASSLANE_PEPPER_KEYS: 'no-colon' })).toThrow(/^PASSLANE_PEPPER_KEYS must be/);
    expect(() => createPasswordHasher({ pepper: { currentKeyId: 'k9', keys: { k1: key(1) } } })).toThrow(InvalidOptionsError);
    // Inherited names are not keys: refused at start-up, not at the first hash.
    expect(() => createPasswordHasher({ pepper: { currentKeyId: 'toString', keys: { k1: key(1) } } })).toThrow(InvalidOptionsError);
    expect(() => readPepperKeys({ PASSLANE_PEPPER_KEYS: `k1:${key(1)},k1:${key(2)}` })).toThrow(/twice/);
  });

  it('bounds-checks a peppered record before decrypting it, with or without the key', async () => {
    const stored = await k1Only.hash(PASSWORD);
    const tooBig = stored.replace('m=19456', 'm=4194304');
    const tooLong = stored + 'A'.repeat(1024);
    for (const hasher of [k1Only, noPepper]) {
      await expect(hasher.verify(tooBig, PASSWORD)).rejects.toMatchObject({ code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
      await expect(hasher.verify(tooLong, PASSWORD)).rejects.toMatchObject({ code: 'ERR_HASH_PARAMS_OUT_OF_BOUNDS' });
      expect(() => hasher.needsRehash(tooBig)).toThrow(/m=4194304/);
    }
    // Only argon2 PHC strings are ever sealed; any other head is malformed, not a key problem.
    const sealedTag = stored.slice(stored.lastIndexOf('$'));
    const scryptHead = '$pepper$v=1,k=k1$scrypt$ln=4,r=8,p=1$AAECAwQFBgcICQoLDA0ODw';
    await expect(k1Only.verify(scryptHead + sealedTag, PASSWORD)).rejects.toMatchObject({ code: 'ERR_HASH_MALFORMED' });
  });
});
