#!/usr/bin/env node
// The `passlane` bin. It is a file of the repository, not the bundle it loads: on a fresh clone,
// npm links workspace bins before the root `prepare` builds dist/, and a bin whose target does not
// exist yet is never linked (`npx passlane` then says "could not determine executable to run").
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/passlane.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  // Only in a clone installed with --ignore-scripts: a published package always holds dist/.
  console.error('passlane: the CLI is not built (dist/cli/passlane.js is missing): run `npm run build` at the repository root');
  process.exitCode = 2;
}
