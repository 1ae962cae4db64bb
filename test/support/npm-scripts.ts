/**
 * How every npm script of the root package.json is exercised, so that none rots unseen again
 * (issue 26: `npm run bench:worker` answered "register answered 500" for weeks, as nothing ran
 * it). Each script is exactly one of:
 *   run        test/npm-scripts-run.test.ts runs it here through npm, in a quick form (small
 *              rounds or a check mode), and it must exit 0 and print what `expect` says;
 *   test       the named test runs the script's entry file its own way (a child process or an
 *              import): the entry's path appears in that test or in the support file it uses;
 *   ci         .ci/run reaches it: `npm ci` runs prepare, `npm test` runs build, lint and the
 *              whole suite (both vitest projects, so test:quick's files too);
 *   exception  why it cannot run here, and what checks it instead.
 * test/npm-scripts.test.ts fails when a script has no entry here (or an entry names no script),
 * and checks the `test` and `ci` claims; it is in the quick project.
 */

import { PASSLANE_FUNCTIONS } from '../../packages/server/src/cdk/functions.js';

export interface QuickRun {
  /** After `--`; `tmp` is a fresh temporary folder, removed afterwards. */
  args?: (tmp: string) => string[];
  env?: Record<string, string>;
  /** Matched against stdout (stderr carries Node's and the SDK's warnings). */
  expect: RegExp;
  /** A further check of the output, for what a pattern cannot say. */
  check?: (output: string) => void;
}

export type ScriptCoverage =
  | { run: QuickRun }
  | { test: string; entryIn?: string }
  | { ci: string }
  | { exception: string };

export const NPM_SCRIPT_COVERAGE: Record<string, ScriptCoverage> = {
  start: { test: 'test/local-server.e2e.test.ts', entryIn: 'test/support/local-server-process.ts' },
  prepare: { ci: '`npm ci` in .ci/run runs it (as every npm install does)' },
  build: { ci: '`npm test` runs it first' },
  lint: { ci: '`npm test` runs it after the build' },
  test: { ci: '.ci/run ends with `npm test`' },
  'test:quick': { ci: "`npm test`'s `vitest run` runs the quick project with the rest; the check holds the project name" },
  'bench:hash': {
    run: { env: { ROUNDS: '1' }, expect: /argon2id m=65536 KiB, t=3, p=4: 1 interleaved rounds[\s\S]*argon2id \(openpgpjs\)/ },
  },
  'build:wasm': {
    exception:
      'needs clang and lld, and rewrites the committed argon2.wasm (another toolchain version writes other bytes); ' +
      'test/argon2-wasm.test.ts and test/rfc9106.test.ts check the committed module',
  },
  bench: { test: 'test/bench-run.test.ts' },
  loadtest: { test: 'test/bench-loadtest.test.ts' },
  'build:worker': { run: { args: (tmp) => [tmp], expect: /worker\.js \(\d+ KiB\) \+ \S*argon2\.wasm/ } },
  'build:blocklist': { run: { args: () => ['--check'], expect: /is up to date/ } },
  'bench:worker': { run: { env: { ROUNDS: '1' }, expect: /workerd, 1 rounds[\s\S]*login \(dynalite on loopback\)\s+\d/ } },
  // The [build] command (npm run build:worker) and wrangler's checks of wrangler.toml and the
  // bundle; only the upload is left out. Needs no account.
  'deploy:worker': { run: { args: (tmp) => ['--dry-run', '--outdir', tmp], env: { WRANGLER_SEND_METRICS: 'false' }, expect: /--dry-run: exiting now/ } },
  package: { test: 'test/deploy-package.test.ts', entryIn: 'test/support/packaging.ts' },
  // Silent when serverless.yml and infra/iam-roles.yml are what the description generates.
  'generate:infra': { run: { args: () => ['--check'], expect: /^$/ } },
  // Silent when openapi.yaml is what the routes and their schemas generate.
  'generate:openapi': { run: { args: () => ['--check'], expect: /^$/ } },
  'bench:cold': {
    run: {
      env: { RUNS: '1' },
      expect: /\| sdk-only \(reference\) \|[\s\S]*first use in a fresh process/,
      // Only functions without a route are labelled non-HTTP (token, sessions and recovery once were).
      check: (output) => {
        for (const fn of PASSLANE_FUNCTIONS) {
          const label = fn.routes.length > 0 ? fn.name : `${fn.name} (non-HTTP)`;
          if (!output.includes(`| ${label} |`)) throw new Error(`bench:cold: no row labelled "${label}"`);
        }
      },
    },
  },
  'build:vercel': { run: { args: (tmp) => [tmp], expect: /worker\.js \(\d+ KiB\) \+ \S*argon2\.wasm/ } },
  'start:bun': { test: 'test/api-contract.test.ts', entryIn: 'test/support/api-hosts.ts' },
  'start:deno': { test: 'test/api-contract.test.ts', entryIn: 'test/support/api-hosts.ts' },
  'bench:login': {
    run: { args: () => ['--quick', '--rounds', '1', '--batch', '1', '--warmup', '1'], expect: /login \/ verify, CPU medians/ },
  },
  'bench:timing': { run: { env: { ROUNDS: '1', SUCCESSES: '1' }, expect: /check: every ratio within 1 ± 0\.15/ } },
  // A server that runs until stopped: the contract suite serves every route through it, and
  // test/serverless-offline.test.ts its environment and both authorizers.
  offline: { test: 'test/api-contract.test.ts', entryIn: 'test/support/api-hosts.ts' },
};

/** The file a script runs: the last path in its command (`tsx ... bench/loadtest.ts` -> bench/loadtest.ts). */
export function scriptEntry(command: string): string | undefined {
  return command.match(/[\w.-]+(?:\/[\w.-]+)+\.(?:ts|js|mjs|sh)\b/g)?.pop();
}
