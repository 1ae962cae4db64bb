/**
 * The raw argon2id call of each backend, without the hasher's limiter, salt generation or PHC
 * encoding: the bench measures the hash itself. Imported dynamically, so a missing native
 * binding fails only when the native backend is asked for.
 */
import type { HashingBackend } from '../../packages/passlane/src/backends/types.js';
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
    if (name === 'native') {
      const { createNativeBackend } = await import('../../packages/passlane/src/backends/native.js');
      out.push(benchHasherFor(createNativeBackend()));
    } else {
      const [{ createWasmBackend }, { loadArgon2WasmModule }] = await Promise.all([
        import('../../packages/passlane/src/backends/wasm.js'),
        import('../../packages/passlane/src/backends/wasm/load-wasm-module-node.js'),
      ]);
      out.push(benchHasherFor(await createWasmBackend(await loadArgon2WasmModule(), { retainMemoryKiB })));
    }
  }
  return out;
}
