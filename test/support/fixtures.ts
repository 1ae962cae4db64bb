import { readdirSync, readFileSync } from 'node:fs';

export interface LegacyFixture {
  id: string;
  scheme: string;
  source: string;
  hash: string;
  password: string;
  wrongPassword: string;
  wrongPasswordMatches?: boolean;
  notes?: string;
}

export interface HostileFixture {
  id: string;
  hash: string;
  why: string;
}

interface FixtureFile {
  hashes: LegacyFixture[];
  hostile: HostileFixture[];
}

const fixtureDir = new URL('../fixtures/', import.meta.url);

/**
 * Hashes made by the original implementations (see test/fixtures/make-legacy-hashes.sh), from
 * every `*-hashes.json` there: legacy-hashes.json first, so tests that pick "the first bcrypt"
 * keep picking the same one.
 */
export const legacyFixtures: FixtureFile = readdirSync(fixtureDir)
  .filter((name) => name.endsWith('-hashes.json'))
  .sort((a, b) => Number(b === 'legacy-hashes.json') - Number(a === 'legacy-hashes.json') || a.localeCompare(b))
  .map((name) => JSON.parse(readFileSync(new URL(name, fixtureDir), 'utf8')) as FixtureFile)
  .reduce<FixtureFile>((all, file) => ({ hashes: [...all.hashes, ...file.hashes], hostile: [...all.hostile, ...(file.hostile ?? [])] }), { hashes: [], hostile: [] });
