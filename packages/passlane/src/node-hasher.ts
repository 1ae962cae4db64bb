/**
 * The Node.js, AWS Lambda, Bun and Deno hasher: the native argon2 binding, with the WASM build as
 * fallback (read from the `.wasm` file next to its loader). A module of its own, so a bundle that
 * takes only the core's errors or types from `passlane` pulls in no backend (its dynamic imports
 * are chunks a bundler keeps whenever their module is in the graph).
 */
import { availableParallelism } from 'node:os';
import { createPasswordHasherWith, type PasswordHasher, type PasswordHasherOptions } from './create-password-hasher.js';

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
    // The WASM backend (its glue, bcryptjs, scrypt in JavaScript) only on fallback, like its
    // loader: a bundle whose native binding loads never reads or compiles it.
    wasm: async (wasmOptions) => {
      const [{ createWasmBackend }, module] = await Promise.all([
        import('./backends/wasm.js'),
        options.wasmModule ?? import('./backends/wasm/load-wasm-module-node.js').then((loader) => loader.loadArgon2WasmModule()),
      ]);
      return createWasmBackend(module, wasmOptions);
    },
  });
}
