/**
 * Node-only: compiles argon2.wasm from the file next to this module (src/ under vitest/tsx,
 * dist/src/ after `npm run build`, where scripts/copy-assets.mjs puts the .wasm). Edge runtimes
 * import the .wasm as a Module instead and must not load this file.
 */
import { readFile } from 'node:fs/promises';

let cached: Promise<WebAssembly.Module> | undefined;

/** Compiled once per process; a Module is immutable and can back any number of instances. */
export function loadArgon2WasmModule(): Promise<WebAssembly.Module> {
  cached ??= readFile(new URL('./argon2.wasm', import.meta.url)).then((bytes) => WebAssembly.compile(bytes));
  // A failed read should not stick: let the next call try again.
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
