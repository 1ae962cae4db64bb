/**
 * The raw argon2id call of each backend, without the hasher's limiter, salt generation or PHC
 * encoding: the bench measures the hash itself (the core's `passlane/backends`, which imports each
 * when asked for, so a missing native binding fails only when the native backend is asked for).
 */
import { loadNativeBackend, loadWasmBackend, type HashingBackend } from 'passlane/backends';
import type { Argon2Params, BenchBackend } from './types.js';

export interface BenchHasher {
  backend: BenchBackend;
  hash(params: Argon2Params): Promise<Uint8Array>;
}

const PASSWORD = new TextEncoder().encode('correct horse battery staple');
const SALT = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) & 0xff);

export function benchHasherFor(backend: HashingBackend): BenchHasher {
  return {
    backend: backend.name,
    hash: (params) =>
      backend.argon2({ algorithm: 'argon2id', version: 0x13, ...params, password: PASSWORD, salt: SALT, tagLength: 32 }),
  };
}

/** `retainMemoryKiB`: the WASM instance keeps its grown memory up to this, as in production. */
export async function loadBenchHashers(backends: BenchBackend[], retainMemoryKiB: number): Promise<BenchHasher[]> {
  const out: BenchHasher[] = [];
  for (const name of backends) {
    out.push(benchHasherFor(name === 'native' ? await loadNativeBackend() : await loadWasmBackend({ retainMemoryKiB })));
  }
  return out;
}
