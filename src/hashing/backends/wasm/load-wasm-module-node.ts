/**
 * Node-only: compiles argon2.wasm from the file next to this module (src/ under vitest/tsx,
 * dist/src/ after `npm run build`, where scripts/copy-assets.mjs puts the .wasm). Edge runtimes
 * import the .wasm as a Module instead and must not load this file.
 */
import { readFile } from 'node:fs/promises';
import { onceUntilFailure } from '../../../shared/once-until-failure.js';

/** Compiled once per process; a Module is immutable and can back any number of instances. */
export const loadArgon2WasmModule: () => Promise<WebAssembly.Module> = /* @__PURE__ */ onceUntilFailure(async () =>
  WebAssembly.compile(await readFile(new URL('./argon2.wasm', import.meta.url))),
);
