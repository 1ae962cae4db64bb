import { readFileSync } from 'node:fs';

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

/** Hashes made by the original implementations (see test/fixtures/make-legacy-hashes.sh). */
export const legacyFixtures = JSON.parse(readFileSync(new URL('../fixtures/legacy-hashes.json', import.meta.url), 'utf8')) as {
  hashes: LegacyFixture[];
  hostile: HostileFixture[];
};
