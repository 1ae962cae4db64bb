import { legacyFixtures, type LegacyFixture } from './fixtures.js';

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/**
 * One fixture of every scheme (argon2 PHC strings stand for `{ARGON2}`, which is how import keeps
 * them): the first whose wrong password really is wrong and whose password a login upgrades to
 * plain argon2id (non-empty, within bcrypt's 72 bytes so no record stays wrapped), and that
 * `accept` admits (a host's bounds, say).
 */
export function onePerScheme(accept: (fixture: LegacyFixture) => boolean = () => true): LegacyFixture[] {
  const seen = new Map<string, LegacyFixture>();
  for (const fixture of legacyFixtures.hashes) {
    const scheme = fixture.hash.startsWith('$argon2') ? 'argon2_raw' : fixture.scheme;
    const usable = fixture.wrongPasswordMatches !== true && fixture.password.length > 0 && utf8Length(fixture.password) <= 72 && accept(fixture);
    if (usable && !seen.has(scheme)) seen.set(scheme, fixture);
  }
  return [...seen.values()];
}
