import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const core = (file: string) => fileURLToPath(new URL(`./packages/passlane/src/${file}`, import.meta.url));

export default defineConfig({
  // `passlane` (the hashing core) from its TypeScript sources, as tsc and tsx resolve it here
  // (its `passlane-source` export condition): a change to the core is tested without a build.
  resolve: {
    alias: [
      { find: /^passlane$/, replacement: core('index.ts') },
      { find: /^passlane\/edge$/, replacement: core('edge.ts') },
      { find: /^passlane\/common$/, replacement: core('public-api.ts') },
      { find: /^passlane\/encoding$/, replacement: core('encoding.ts') },
      { find: /^passlane\/runtime$/, replacement: core('detect-runtime.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // CI has 2 cores; argon2 tests are CPU-bound, so more workers only add contention.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
