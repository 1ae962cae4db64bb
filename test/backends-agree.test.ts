import { describe, expect, it } from 'vitest';
import { createNativeBackend } from '../packages/passlane/src/backends/native.js';
import { createWasmBackend } from '../packages/passlane/src/backends/wasm.js';
import { loadArgon2WasmModule } from '../packages/passlane/src/backends/wasm/load-wasm-module-node.js';
import type { Argon2RawInput } from '../packages/passlane/src/backends/types.js';
import { formatArgon2Phc } from '../packages/passlane/src/schemes/argon2-phc.js';
import { createPasswordHasher } from '../packages/passlane/src/index.js';

const native = createNativeBackend();
const wasm = await createWasmBackend(await loadArgon2WasmModule(), { retainMemoryKiB: 64 * 1024 });

describe('native and WASM backends', () => {
  it('produce the same PHC string for the same salt', async () => {
    const input: Argon2RawInput = {
      algorithm: 'argon2id',
      version: 0x13,
      memoryKiB: 19456,
      passes: 2,
      lanes: 1,
      tagLength: 32,
      password: new TextEncoder().encode('correct horse battery staple'),
      salt: crypto.getRandomValues(new Uint8Array(16)),
    };
    const [fromNative, fromWasm] = await Promise.all([native.argon2(input), wasm.argon2(input)]);
    const phc = (tag: Uint8Array) => formatArgon2Phc({ ...input, salt: input.salt, tag });
    expect(phc(fromWasm)).toBe(phc(fromNative));
  });

  it('verify each other’s hashes', async () => {
    const nativeHasher = createPasswordHasher({ backend: 'native', pepper: false });
    const wasmHasher = createPasswordHasher({ backend: 'wasm', pepper: false });
    const password = 'pässwörd-Ω 🔑';
    const fromNative = await nativeHasher.hash(password);
    const fromWasm = await wasmHasher.hash(password);
    expect((await wasmHasher.verify(fromNative, password)).ok).toBe(true);
    expect((await nativeHasher.verify(fromWasm, password)).ok).toBe(true);
    expect((await wasmHasher.verify(fromNative, 'pässwörd-Ω')).ok).toBe(false);
    expect((await nativeHasher.verify(fromWasm, 'pässwörd-Ω')).ok).toBe(false);
  });

  it('agree on scrypt and bcrypt', async () => {
    const password = new TextEncoder().encode('pässwörd');
    const scrypt = { password, salt: new Uint8Array(16).fill(7), N: 1024, r: 8, p: 1, dkLen: 32 };
    expect(await wasm.scrypt(scrypt)).toEqual(await native.scrypt(scrypt));
    const setting = '$2b$04$abcdefghijklmnopqrstuu';
    expect(await wasm.bcryptChecksum(password, setting)).toBe(await native.bcryptChecksum(password, setting));
  });
});
