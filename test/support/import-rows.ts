import { legacyFixtures, type LegacyFixture } from './fixtures.js';

/** Foreign argon2 PHC strings are stored as `{ARGON2}` + PHC (raw bytes), as import writes them. */
export const storedFormOf = (hash: string) => (hash.startsWith('$argon2') ? `{ARGON2}${hash}` : hash);

export interface GoodRow {
  email: string;
  fixture: LegacyFixture;
}

/**
 * `count` rows of real legacy hashes (the fixtures repeated, each copy under its own email), with
 * emails in mixed case and padded on some rows, as exports have them. `emailOf` gives the
 * normalised email of row i.
 */
export function goodRows(count: number, tag: string): GoodRow[] {
  const fixtures = legacyFixtures.hashes;
  return Array.from({ length: count }, (_, i) => ({ email: `user-${i}-${tag}@example.com`, fixture: fixtures[i % fixtures.length]! }));
}

/** How a row's email is written in the file: some upper-cased, some padded (import normalises). */
export function writtenEmail(email: string, i: number): string {
  if (i % 7 === 0) return email.toUpperCase();
  if (i % 11 === 0) return `  ${email} `;
  return email;
}
