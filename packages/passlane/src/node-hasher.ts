/**
 * The Node.js, AWS Lambda, Bun and Deno hasher: the native argon2 binding, with the WASM build as
 * fallback (read from the `.wasm` file next to its loader). A module of its own, so a bundle that
 * takes only the core's errors or types from `passlane` pulls in no backend (its dynamic imports
 * are chunks a bundler keeps whenever their module is in the graph).
 */
import { availableParallelism } from 'node:os';
import { createPasswordHasherWith, type PasswordHasher, type PasswordHasherOptions } from './create-password-hasher.js';
import { createWasmBackend } from './backends/wasm.js';

export interface NodePasswordHasherOptions extends PasswordHasherOptions {
  /** A precompiled argon2 module; by default the bundled `argon2.wasm` is read and compiled. */
  wasmModule?: WebAssembly.Module;
}

export function createPasswordHasher(options: NodePasswordHasherOptions = {}): PasswordHasher {
  // Native hashes run on the libuv threadpool (4 threads by default): more in flight than cores
  // only makes them fight over the cores, so CPU per hash rises and throughput falls. Queued
  // instead, in the limiter's bounded queue (503 past it). See SECURITY.md, "Bursts".
  const maxConcurrent = options.concurrency?.maxConcurrent ?? availableParallelism();
  return createPasswordHasherWith({ ...options, concurrency: { ...options.concurrency, maxConcurrent } }, {
    native: async () => (await import('./backends/native.js')).createNativeBackend(),
    wasm: async (wasmOptions) => {
      const module =
        options.wasmModule ?? (await (await import('./backends/wasm/load-wasm-module-node.js')).loadArgon2WasmModule());
      return createWasmBackend(module, wasmOptions);
    },
  });
}
