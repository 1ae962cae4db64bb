// The `passlane` CLI as one bundle (dist/cli/passlane.js), so the bench code it carries stays out of
// the library's dist/src. npm packages stay imports: the @node-rs loaders pick their binary at run time.
import { copyFileSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/passlane.ts'],
  outfile: 'dist/cli/passlane.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
// The bundled WASM loader reads argon2.wasm next to the file it runs from (import.meta.url).
copyFileSync('src/hashing/backends/wasm/argon2.wasm', 'dist/cli/argon2.wasm');
