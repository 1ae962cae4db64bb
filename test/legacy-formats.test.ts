import { describe, expect, it } from 'vitest';
import { createPasswordHasher, PasslaneError } from '../packages/passlane/src/index.js';
import { legacyFixtures } from './support/fixtures.js';

// Every format, produced by Django, passlib, python-bcrypt, htpasswd and the argon2 CLI, on both backends.
describe.each(['native', 'wasm'] as const)('legacy formats on the %s backend', (backend) => {
  const hasher = createPasswordHasher({ backend, pepper: false });

  const isPlainArgon2 = (hash: string) => hash.startsWith('$argon2');

  it.each(legacyFixtures.hashes.map((f) => [f.id, f] as const))('%s', async (_id, fixture) => {
    // Foreign argon2 PHC strings hashed raw bytes; passlane keeps them as `{ARGON2}` + PHC (what import writes).
    const stored = isPlainArgon2(fixture.hash) ? `{ARGON2}${fixture.hash}` : fixture.hash;
    const scheme = isPlainArgon2(fixture.hash) ? 'argon2_raw' : fixture.scheme;
    const right = await hasher.verify(stored, fixture.password);
    expect(right.ok).toBe(true);
    expect(right.scheme).toBe(scheme);
    // None of these is passlane's own argon2id at the current policy: all are upgraded at this login.
    expect(right.needsRehash).toBe(true);

    const wrong = await hasher.verify(stored, fixture.wrongPassword);
    expect(wrong.ok).toBe(fixture.wrongPasswordMatches === true);
    expect(wrong.scheme).toBe(scheme);
  });

  // As a plain PHC string the same hash is read as passlane's own: the password is NFKC-normalised
  // first, so it matches exactly when normalising leaves the password unchanged.
  it.each(legacyFixtures.hashes.filter((f) => isPlainArgon2(f.hash)).map((f) => [f.id, f] as const))(
    'plain PHC %s verifies the NFKC form',
    async (_id, fixture) => {
      const result = await hasher.verify(fixture.hash, fixture.password);
      expect(result.ok).toBe(fixture.password.normalize('NFKC') === fixture.password);
      expect(result.scheme).toBe(fixture.scheme);
    },
  );
});

describe('formats that are not hashes', () => {
  const hasher = createPasswordHasher({ pepper: false });

  it.each([
    ['yescrypt (crypt(3) $y$, not supported)', '$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7'],
    ['plain text', 'hunter2'],
    ['DES crypt behind {CRYPT}', '{CRYPT}sUjDZfAi20m2s'],
  ])('%s is refused with a typed error', async (_name, stored) => {
    await expect(hasher.verify(stored, 'password')).rejects.toMatchObject({ code: 'ERR_HASH_UNSUPPORTED' });
    expect(() => hasher.needsRehash(stored)).toThrow(PasslaneError);
  });
});
