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

export interface FixtureFile {
  hashes: LegacyFixture[];
  hostile: HostileFixture[];
}

const fixtureDir = new URL('../fixtures/', import.meta.url);

/** One file of test/fixtures, with the lookups the format tests use; `Extra`: its own sections. */
export function readFixtureFile<Extra = object>(name: string) {
  const file = JSON.parse(readFileSync(new URL(name, fixtureDir), 'utf8')) as FixtureFile & Extra;
  return {
    file,
    fixture: (id: string) => file.hashes.find((f) => f.id === id)!,
    hostile: (id: string) => file.hostile.find((f) => f.id === id)!.hash,
  };
}

/** The `code` of what `run` throws, or 'no error'. */
export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'no error';
}

/**
 * Hashes made by the original implementations (see test/fixtures/make-legacy-hashes.sh), from
 * every `*-hashes.json` there: legacy-hashes.json first, so tests that pick "the first bcrypt"
 * keep picking the same one.
 */
export const legacyFixtures: FixtureFile = readdirSync(fixtureDir)
  .filter((name) => name.endsWith('-hashes.json'))
  .sort((a, b) => Number(b === 'legacy-hashes.json') - Number(a === 'legacy-hashes.json') || a.localeCompare(b))
  .map((name) => readFixtureFile(name).file)
  .reduce<FixtureFile>((all, file) => ({ hashes: [...all.hashes, ...file.hashes], hostile: [...all.hostile, ...(file.hostile ?? [])] }), { hashes: [], hostile: [] });
