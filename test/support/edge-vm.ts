/**
 * An edge bundle in Vercel's EdgeVM with run-time WebAssembly compilation off, as in production.
 * EdgeVM evaluates scripts, not modules: the bundle is wrapped into a script with a `fetch`
 * listener, and its `./argon2.wasm` import is served from a Module compiled here, outside the VM
 * (standing in for the platform's static `.wasm` import).
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EdgeRuntime } from 'edge-runtime';
import { build } from 'esbuild';

/** `respond` is an expression over the bundle's default export `entry` and `request`, e.g. `entry.fetch(request)`. */
export async function startEdgeVm(bundle: { scriptPath: string; wasmPath: string }, respond: string, context: Record<string, unknown> = {}): Promise<EdgeRuntime> {
  const script = await build({
    stdin: {
      contents: `import entry from ${JSON.stringify(bundle.scriptPath)};
        addEventListener('fetch', (event) => { const request = event.request; event.respondWith(${respond}); });`,
      resolveDir: dirname(bundle.scriptPath),
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    plugins: [
      {
        name: 'wasm-from-global',
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /\.wasm$/ }, () => ({ path: 'argon2', namespace: 'platform-wasm' }));
          pluginBuild.onLoad({ filter: /.*/, namespace: 'platform-wasm' }, () => ({ contents: 'export default globalThis.__argon2Module;' }));
        },
      },
    ],
  });
  const vm = new EdgeRuntime({ codeGeneration: { strings: false, wasm: false } });
  vm.context.__argon2Module = await WebAssembly.compile(await readFile(bundle.wasmPath));
  Object.assign(vm.context, context);
  vm.evaluate(script.outputFiles[0]!.text);
  return vm;
}
