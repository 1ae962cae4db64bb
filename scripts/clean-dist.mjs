// tsc never deletes outputs: a file moved or dropped from the build (src/cli, functions/)
// would linger in dist/ and be published. Only what `npm run build` writes is removed; the Worker
// and Vercel bundles (dist/worker, dist/vercel-edge) have builds of their own.
import { rmSync } from 'node:fs';

for (const dir of ['dist/src', 'dist/cli', 'dist/hosts', 'dist/functions']) rmSync(dir, { recursive: true, force: true });
