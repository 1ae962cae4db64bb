/**
 * One function -> one directory: index.mjs (ESM, minified), the `.node` binaries it loads (for
 * the target architecture only) and argon2.wasm when the WASM fallback is in the bundle.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ELF_MACHINE, type LambdaArchitecture } from './architectures.js';
import { elfMachine } from './elf-machine.js';
import { BUNDLE_FILE, type LambdaFunction } from './lambda-functions.js';
import type { BindingPackage } from './native-packages.js';

/** nodejs22.x; the same bundle runs on nodejs24.x. */
export const NODE_TARGET = 'node22';

/** The loader reads this file next to itself (packages/passlane/src/backends/wasm/load-wasm-module-node.ts). */
const WASM_LOADER = 'packages/passlane/src/backends/wasm/load-wasm-module-node.ts';
const WASM_FILE = 'packages/passlane/src/backends/wasm/argon2.wasm';

export interface BundleOptions {
  root: string;
  outDir: string;
  arch: LambdaArchitecture;
  bindings: BindingPackage[];
  /**
   * Leave `@aws-sdk/*` to the runtime's copy. Off by default: the runtime's SDK version is not
   * ours and changes without notice (the DynamoDB client relies on `throwOnRequestTimeout`, which
   * an older SDK ignores silently), and our own minified copy imports faster than the runtime's
   * unbundled one. The option exists to measure that trade-off.
   */
  externalAwsSdk?: boolean;
  /**
   * Writes a source map beside each output (`index.mjs.map`), for the benches that profile a
   * bundle (bench/profile-summary.ts). Off for what ships: the zips hold no maps.
   */
  sourcemap?: boolean;
}

export interface BundleResult {
  /** Relative to outDir. */
  files: string[];
  nativeBinaries: string[];
  hasWasm: boolean;
  /** esbuild's account of the build: each output's bytes by input module (bench/cold-start-breakdown.ts reads it). */
  metafile: Metafile;
}

export async function bundleFunction(fn: LambdaFunction, options: BundleOptions): Promise<BundleResult> {
  const { root, outDir } = options;
  const result = await build({
    absWorkingDir: root,
    entryPoints: { [basename(BUNDLE_FILE, '.mjs')]: join(root, fn.entry) },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    // The hashing core from its sources, as everything in this repository resolves it.
    conditions: ['passlane-source'],
    format: 'esm',
    target: NODE_TARGET,
    minify: true,
    // No keepNames: it cost the login zip 24 KB and its cold import ~15 ms (bench:cold, 3 runs
    // each, 2026-12-02), and the logs need no class names: typed errors log their `code`, and the
    // errors logged by name (ConfigError, SecretLoadError) set theirs as a literal.
    legalComments: 'none',
    // Code behind a dynamic import (the SSM client, the native and WASM backends) goes into chunk
    // files beside index.mjs, read only when that import runs: a cold start that never fetches a
    // secret or falls back to WASM does not parse them.
    splitting: true,
    chunkNames: '[name]-[hash]',
    // The bundled CommonJS (the @node-rs loaders, the SDK) calls require(); ESM output has none.
    banner: { js: "import{createRequire as __passlaneCreateRequire}from'node:module';const require=__passlaneCreateRequire(import.meta.url);" },
    // `copy` keeps the binary a real file next to index.mjs, which require() can dlopen;
    // `file` builds too but fails at run time.
    loader: { '.node': 'copy' },
    assetNames: '[name]',
    external: options.externalAwsSdk ? ['@aws-sdk/*'] : [],
    plugins: [bindingsForArchitecture(options.bindings)],
    metafile: true,
    ...(options.sourcemap && { sourcemap: true }),
    logLevel: 'warning',
  });
  const outputs = outputsOf(result.metafile, root, outDir, fn.entry);
  const nativeBinaries = outputs.filter((file) => file.endsWith('.node'));
  for (const file of nativeBinaries) checkMachine(join(outDir, file), options.arch);
  const hasWasm = wasmLoaderIsLive(result.metafile);
  if (hasWasm) copyFileSync(join(root, WASM_FILE), join(outDir, basename(WASM_FILE)));
  return { files: [...outputs, ...(hasWasm ? [basename(WASM_FILE)] : [])].sort(), nativeBinaries, hasWasm, metafile: result.metafile };
}

/**
 * The napi-rs loaders require `@node-rs/<name>-<platform>` for every platform inside try/catch.
 * The target architecture's package resolves to the unpacked binary package (from node_modules
 * or the cache); every other platform's stays an unresolved require that is never reached on
 * Lambda, so no foreign binary lands in the zip.
 */
function bindingsForArchitecture(bindings: BindingPackage[]): Plugin {
  const byName = new Map(bindings.map((binding) => [binding.name, binding]));
  return {
    name: 'passlane-native-bindings',
    setup(build) {
      build.onResolve({ filter: /^@node-rs\/(argon2|bcrypt)-[^/]+(\/package\.json)?$/ }, (args) => {
        const [, name = '', packageJson] = /^(@node-rs\/[^/]+)(\/package\.json)?$/.exec(args.path) ?? [];
        const binding = byName.get(name);
        if (binding === undefined) return { path: args.path, external: true };
        return { path: join(binding.dir, packageJson ? 'package.json' : binding.main) };
      });
    },
  };
}

/**
 * The files to ship: every output but the chunks no code can load. esbuild writes a chunk for
 * every `import()` in the modules it bundles, even where tree shaking dropped the code that makes
 * the call (the SES client's chunk in functions that never wire mail), so chunks are kept only if
 * reachable from the function's entry through the imports the metafile records (static and
 * dynamic; every `import()` target is an entry point of its own there). Other outputs (the
 * `.node` binaries) are kept as they are.
 */
function outputsOf(metafile: Metafile, root: string, outDir: string, entry: string): string[] {
  const { outputs } = metafile;
  const reachable = new Set<string>();
  const visit = (file: string): void => {
    const output = outputs[file];
    if (output === undefined || reachable.has(file)) return;
    reachable.add(file);
    for (const imported of output.imports) if (imported.external !== true) visit(imported.path);
  };
  const entryOutput = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === entry);
  if (entryOutput === undefined) throw new Error(`esbuild wrote no output for ${entry}`);
  visit(entryOutput);
  return Object.keys(outputs)
    .filter((file) => (file.endsWith('.mjs.map') ? reachable.has(file.slice(0, -'.map'.length)) : !file.endsWith('.mjs') || reachable.has(file)))
    .map((file) => relative(outDir, join(root, file)));
}

/** The WASM loader's code made it into the bundle (tree shaking drops it where no hasher is built). */
function wasmLoaderIsLive(metafile: Metafile): boolean {
  return Object.values(metafile.outputs).some((output) => (output.inputs[WASM_LOADER]?.bytesInOutput ?? 0) > 0);
}

function checkMachine(file: string, arch: LambdaArchitecture): void {
  const machine = elfMachine(readFileSync(file));
  if (machine !== ELF_MACHINE[arch]) {
    throw new Error(`${file} is built for ELF machine 0x${machine.toString(16)}, not ${arch} (0x${ELF_MACHINE[arch].toString(16)})`);
  }
}
