/**
 * passlane for Cloudflare Workers, Vercel Edge and browsers: WASM only, from a statically
 * imported module (these runtimes forbid compiling WebAssembly from bytes at run time; bundlers
 * such as wrangler and esbuild turn this import into a precompiled WebAssembly.Module).
 */
import argon2Module from './backends/wasm/argon2.wasm';
import { createPasswordHasherWith, type PasswordHasher, type PasswordHasherOptions } from './create-password-hasher.js';
import { createWasmBackend } from './backends/wasm.js';

export * from './public-api.js';

export interface EdgePasswordHasherOptions extends PasswordHasherOptions {
  /** Overrides the bundled module, e.g. when the host imports the `.wasm` itself. */
  wasmModule?: WebAssembly.Module;
}

export function createPasswordHasher(options: EdgePasswordHasherOptions = {}): PasswordHasher {
  return createPasswordHasherWith(options, {
    wasm: (wasmOptions) => createWasmBackend(options.wasmModule ?? argon2Module, wasmOptions),
  });
}
