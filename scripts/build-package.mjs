// `npm run build` of one package (run from its folder): dist/ afresh, tsc, then what tsc does not do.
//   core:   the argon2 WASM module beside its compiled loader.
//   server: the `passlane` CLI as one bundle (dist/cli/passlane.js), so the bench engine it carries
//           (src/cli/bench) stays out of the library's dist. npm packages stay imports, `passlane` (the
//           core) among them: the bench's raw backends (`passlane/backends`) read the core's own WASM.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const which = process.argv[2];
// tsc never deletes outputs: a file moved or dropped from the build would linger and be published.
rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (which === 'core') {
  mkdirSync('dist/backends/wasm', { recursive: true });
  copyFileSync('src/backends/wasm/argon2.wasm', 'dist/backends/wasm/argon2.wasm');
} else if (which === 'server') {
  await build({
    entryPoints: ['src/cli/passlane.ts'],
    outfile: 'dist/cli/passlane.js',
    bundle: true,
    platform: 'node',
    format: 'esm',
    // @passlane/server's engines (>=22), as the Lambda bundles (scripts/packaging/bundle-function.ts).
    target: 'node22',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
} else {
  throw new Error('usage: node scripts/build-package.mjs core|server');
}
