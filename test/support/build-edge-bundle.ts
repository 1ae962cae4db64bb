/**
 * Bundles an edge entry (a Worker, or anything importing src/edge.ts) the way wrangler does: one
 * ESM file for the browser platform, with `argon2.wasm` copied next to it and imported by relative
 * path, so the runtime hands the script a precompiled WebAssembly.Module (workerd's CompiledWasm
 * module type; Vercel's `?module` imports work the same way).
 */
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

export interface EdgeBundle {
  /** The ESM script; it imports `./argon2.wasm`. */
  scriptPath: string;
  wasmPath: string;
}

/**
 * Edge runtimes have no Node-API addons and no `node:` builtins. Fail the build on either, naming
 * the importer, instead of letting @node-rs/argon2's `browser` field quietly pull in its WASI build.
 */
const rejectNodeOnly: Plugin = {
  name: 'reject-node-only',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(node:|@node-rs\/)/ }, (args) => ({
      errors: [{ text: `edge bundle must not import ${args.path} (imported by ${args.importer})` }],
    }));
  },
};

export async function buildEdgeBundle({ entry, outdir }: { entry: string; outdir: string }): Promise<EdgeBundle> {
  await build({
    entryPoints: { worker: entry },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    // `copy` keeps the import statement and rewrites it to the copied file: `import m from "./argon2.wasm"`.
    loader: { '.wasm': 'copy' },
    assetNames: '[name]',
    plugins: [rejectNodeOnly],
    logLevel: 'silent',
  });
  return { scriptPath: join(outdir, 'worker.js'), wasmPath: join(outdir, 'argon2.wasm') };
}
