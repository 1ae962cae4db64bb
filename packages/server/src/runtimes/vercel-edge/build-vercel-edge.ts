/**
 * Bundles packages/server/src/runtimes/vercel-edge/vercel-edge.ts for Vercel's Edge runtime into `dist/vercel-edge/` (`worker.js`
 * + `argon2.wasm`), the same way the Worker is bundled but resolving the `edge-light` export
 * condition. Place the output as an Edge Function (e.g. `api/[...path].js` with `export const
 * config = { runtime: 'edge' }`, which the bundle carries) and set the same variables as the Worker.
 *
 *   npm run build:vercel      (tsx packages/server/src/runtimes/vercel-edge/build-vercel-edge.ts [outdir])
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForEdge } from '../workers/build-worker.js';

const entry = fileURLToPath(new URL('./vercel-edge.ts', import.meta.url));
const outdir = process.argv[2] === undefined ? fileURLToPath(new URL('../../../../../dist/vercel-edge/', import.meta.url)) : resolve(process.argv[2]);
const bundle = await bundleForEdge({ entry, outdir, minify: true, conditions: ['edge-light', 'worker', 'browser'] });
console.log(`${bundle.scriptPath} (${(bundle.bytes / 1024).toFixed(0)} KiB) + ${bundle.wasmPath}`);
