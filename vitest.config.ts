import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const core = (file: string) => fileURLToPath(new URL(`./packages/passlane/src/${file}`, import.meta.url));

/**
 * `npm run test:quick` (vitest run --project quick): under a minute on 2 cores, against about 8
 * for the whole suite. Chosen by measuring each file alone: those that take a few seconds at most
 * and guard what breaks most often or costs most when broken: the hashing core against RFC 9106
 * and across backends, the configuration, the layering, the error table and the API's contract,
 * the HTTP handlers and login's use cases and limits on an embedded DynamoDB (dynalite), tokens,
 * the stored formats' parsers, the bench engine's pure parts, and that every npm script is
 * exercised. Left out: the files that start servers (DynamoDB Local in Java, the local server,
 * Miniflare's Workers, Deno, Bun), bundle or package functions, run the CLI or the benches, or
 * hash slow legacy formats (bcrypt, scrypt, PBKDF2 at real costs). `npm test` runs everything:
 * both projects, each file once.
 */
export const QUICK_TEST_FILES = [
  'test/api-responses.test.ts',
  'test/architecture.test.ts',
  'test/argon2-wasm.test.ts',
  'test/backend-selection.test.ts',
  'test/backends-agree.test.ts',
  'test/bench-chart.test.ts',
  'test/bench-recommend.test.ts',
  'test/bench-stability.test.ts',
  'test/bench-statistics.test.ts',
  'test/canonical-email.test.ts',
  'test/cloudformation-spec.test.ts',
  'test/config.test.ts',
  'test/direct-requests-sdk-pin.test.ts',
  'test/dummy-verify.test.ts',
  'test/error-table.test.ts',
  'test/fingerprint.test.ts',
  'test/framework-formats.test.ts',
  'test/http-handlers.test.ts',
  'test/limiter.test.ts',
  'test/login-guard.test.ts',
  'test/mail-templates.test.ts',
  'test/npm-scripts.test.ts',
  'test/once-until-failure.test.ts',
  'test/openapi-contract.test.ts',
  'test/password-hasher.test.ts',
  'test/pepper.test.ts',
  'test/read-json-body.test.ts',
  'test/rfc9106.test.ts',
  'test/tokens.test.ts',
  'test/unix-formats.test.ts',
  'test/use-cases.test.ts',
];

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
    // CI has 2 cores; argon2 tests are CPU-bound, so more workers only add contention.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'quick', include: QUICK_TEST_FILES } },
      { extends: true, test: { name: 'rest', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...QUICK_TEST_FILES] } },
    ],
  },
});
