/**
 * Node-only: compiles argon2.wasm from the file next to this module (src/ under vitest/tsx,
 * dist/ after `npm run build`, where scripts/build-package.mjs puts the .wasm). Edge
 * runtimes import the .wasm as a Module instead and must not load this file.
 */
import { readFile } from 'node:fs/promises';

let compiled: Promise<WebAssembly.Module> | undefined;

/** Compiled once per process (a Module is immutable and can back any number of instances); a failed read is tried again. */
export function loadArgon2WasmModule(): Promise<WebAssembly.Module> {
  return (compiled ??= readFile(new URL('./argon2.wasm', import.meta.url))
    .then((bytes) => WebAssembly.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    }));
}
