/**
 * `passlane/backends`: the raw hashing backends, without the hasher's limiter, salts or PHC
 * encoding, for measuring the hash itself (`passlane bench`, in @passlane/server). Each is
 * imported when asked for, so a missing native binding fails only a request for `native`.
 * Node only: the WASM module is read from the file beside its loader.
 */
import type { HashingBackend } from './types.js';
import type { WasmBackendOptions } from './wasm.js';

export type { Argon2Algorithm, BackendName, HashingBackend } from './types.js';
export type { WasmBackendOptions } from './wasm.js';

/** @node-rs/argon2 and @node-rs/bcrypt on the libuv threadpool; the import fails where the binding cannot load. */
export async function loadNativeBackend(): Promise<HashingBackend> {
  const { createNativeBackend } = await import('./native.js');
  return createNativeBackend();
}

/** passlane's argon2 WASM build (and the pure-JS bcrypt and scrypt), on the calling thread. */
export async function loadWasmBackend(options: WasmBackendOptions): Promise<HashingBackend> {
  const [{ createWasmBackend }, { loadArgon2WasmModule }] = await Promise.all([import('./wasm.js'), import('./wasm/load-wasm-module-node.js')]);
  return createWasmBackend(await loadArgon2WasmModule(), options);
}
