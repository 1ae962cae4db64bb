/**
 * Bundles the Worker the way wrangler would, into `dist/worker/`: one ESM `worker.js` for the
 * browser platform with workerd's export conditions, and `argon2.wasm` beside it, imported by
 * relative path so workerd hands the script a precompiled module (the CompiledWasm rule in
 * wrangler.toml). wrangler.toml deploys this output as is (`no_bundle`), so what the tests run
 * is what ships. The tests bundle other edge entries with the same `bundleForEdge`.
 *
 *   npm run build:worker      (tsx packages/server/src/runtimes/workers/build-worker.ts [outdir])
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));
export const DEFAULT_OUTDIR = fileURLToPath(new URL('../../../../../dist/worker/', import.meta.url));

export interface WorkerBundle {
  scriptPath: string;
  wasmPath: string;
  bytes: number;
}

/**
 * Workers (without nodejs_compat) have no `node:` builtins and no Node-API addons: fail the
 * build naming the importer, rather than let @node-rs/argon2's `browser` field pull in WASI.
 * `kept` are left as imports for the runtime to provide: the Worker's `node:async_hooks`, which
 * workerd serves under the `nodejs_als` flag (wrangler.toml).
 */
function rejectNodeOnly(kept: readonly string[]): Plugin {
  return {
    name: 'reject-node-only',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^(node:|@node-rs\/)/ }, (args) =>
        kept.includes(args.path) ? { path: args.path, external: true } : { errors: [{ text: `an edge bundle must not import ${args.path} (imported by ${args.importer})` }] },
      );
    },
  };
}

/** The Worker's one `node:` import (worker.ts): its AsyncLocalStorage, under the `nodejs_als` compatibility flag. */
export const WORKER_NODE_IMPORTS = ['node:async_hooks'] as const;
/** wrangler.toml's `compatibility_flags`, for whatever runs the bundle elsewhere (Miniflare in the tests and benches). */
export const WORKER_COMPATIBILITY_FLAGS = ['nodejs_als'];

export function buildWorker({ outdir = DEFAULT_OUTDIR, minify = true } = {}): Promise<WorkerBundle> {
  return bundleForEdge({ entry: WORKER_ENTRY, outdir, minify, nodeImports: WORKER_NODE_IMPORTS });
}

/** Any edge entry (the Worker, or a test entry importing packages/passlane/src/edge.ts) as `outdir/worker.js` + `argon2.wasm`. */
export async function bundleForEdge({
  entry,
  outdir,
  minify = false,
  // workerd's conditions by default; Vercel Edge resolves `edge-light` first.
  conditions = ['workerd', 'worker', 'browser'],
  nodeImports = [],
}: {
  entry: string;
  outdir: string;
  minify?: boolean;
  conditions?: string[];
  /** `node:` modules the runtime provides, left as imports (any other fails the build). */
  nodeImports?: readonly string[];
}): Promise<WorkerBundle> {
  const result = await build({
    entryPoints: { worker: entry },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The hashing core from its sources in this repository (packages/passlane/package.json).
    conditions: ['passlane-source', ...conditions],
    // `copy` keeps the import and rewrites it to the copied file: `import m from "./argon2.wasm"`.
    loader: { '.wasm': 'copy' },
    assetNames: '[name]',
    minify,
    // Names survive minification: PasslaneServerError & co. set `name` from new.target.name, and logs use it.
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    plugins: [rejectNodeOnly(nodeImports)],
    logLevel: 'warning',
  });
  const scriptPath = join(outdir, 'worker.js');
  const bytes = Object.entries(result.metafile.outputs).find(([path]) => resolve(path) === resolve(scriptPath))?.[1].bytes ?? 0;
  return { scriptPath, wasmPath: join(outdir, 'argon2.wasm'), bytes };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const bundle = await buildWorker({ outdir: process.argv[2] === undefined ? DEFAULT_OUTDIR : resolve(process.argv[2]) });
  console.log(`${bundle.scriptPath} (${(bundle.bytes / 1024).toFixed(0)} KiB) + ${bundle.wasmPath}`);
}
