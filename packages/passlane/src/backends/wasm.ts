import { scryptAsync } from '@noble/hashes/scrypt.js';
import bcrypt from 'bcryptjs';
import { Argon2Wasm } from './wasm/argon2-wasm.js';
import type { HashingBackend } from './types.js';

export interface WasmBackendOptions {
  /**
   * The instance's memory only grows; after a hash that left it above this size (an unusually
   * large legacy hash), the instance is dropped so the memory can be reclaimed. KiB.
   */
  retainMemoryKiB: number;
}

const textDecoder = new TextDecoder();

/**
 * For runtimes without Node-API addons. Takes an already compiled module, because workerd and
 * edge runtimes forbid compiling WebAssembly from bytes at run time: they get it from a static
 * `.wasm` import. bcrypt and scrypt come from pure-JS libraries (bcryptjs, @noble/hashes).
 */
export async function createWasmBackend(module: WebAssembly.Module, options: WasmBackendOptions): Promise<HashingBackend> {
  const argon2 = await Argon2Wasm.instantiate(module);
  return {
    name: 'wasm',
    async argon2(input) {
      const tag = argon2.hash(input);
      if (argon2.memoryBytes > options.retainMemoryKiB * 1024) await argon2.reset();
      return tag;
    },
    async bcryptChecksum(password, setting) {
      // bcryptjs takes text and encodes it as UTF-8 itself; every caller passes UTF-8 bytes.
      const full = await bcrypt.hash(textDecoder.decode(password), setting);
      return full.slice(-31);
    },
    scrypt({ password, salt, N, r, p, dkLen }) {
      return scryptAsync(password, salt, { N, r, p, dkLen });
    },
  };
}
