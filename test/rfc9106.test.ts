/**
 * RFC 9106 §5.3 (argon2id with secret K and associated data X) through the public backends, not
 * just the raw WASM binding: the vector is the only published check of K and X handling.
 */
import { describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '../packages/passlane/src/errors.js';
import { createNativeBackend } from '../packages/passlane/src/backends/native.js';
import type { Argon2RawInput } from '../packages/passlane/src/backends/types.js';
import { createWasmBackend } from '../packages/passlane/src/backends/wasm.js';
import { loadArgon2WasmModule } from '../packages/passlane/src/backends/wasm/load-wasm-module-node.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** RFC 9106 §5.3: v=0x13, m=32 KiB, t=3, p=4, T=32; P = 32 x 01, S = 16 x 02, K = 8 x 03, X = 12 x 04. */
const RFC_9106_ARGON2ID: Argon2RawInput = {
  algorithm: 'argon2id',
  version: 0x13,
  memoryKiB: 32,
  passes: 3,
  lanes: 4,
  tagLength: 32,
  password: new Uint8Array(32).fill(0x01),
  salt: new Uint8Array(16).fill(0x02),
  secret: new Uint8Array(8).fill(0x03),
  associatedData: new Uint8Array(12).fill(0x04),
};
const RFC_9106_ARGON2ID_TAG = '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659';

const wasm = await createWasmBackend(await loadArgon2WasmModule(), { retainMemoryKiB: 65536 });
const native = createNativeBackend();

describe('RFC 9106 §5.3 argon2id test vector', () => {
  it('the WASM backend produces the tag', async () => {
    expect(hex(await wasm.argon2(RFC_9106_ARGON2ID))).toBe(RFC_9106_ARGON2ID_TAG);
  });

  it('the native backend refuses it: @node-rs/argon2 cannot take associated data', async () => {
    // @node-rs/argon2's hashRaw has a `secret` option but no associated-data one, so the native
    // backend cannot compute this vector at all. It must refuse rather than silently drop X and
    // return a different tag; the caller can then fall back to the WASM backend.
    await expect(native.argon2(RFC_9106_ARGON2ID)).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('with the secret alone (no X), native and WASM agree', async () => {
    const { associatedData: _dropped, ...secretOnly } = RFC_9106_ARGON2ID;
    const [fromNative, fromWasm] = await Promise.all([native.argon2(secretOnly), wasm.argon2(secretOnly)]);
    expect(hex(fromNative)).toBe(hex(fromWasm));
    // X really is part of the vector: without it the tag differs.
    expect(hex(fromWasm)).not.toBe(RFC_9106_ARGON2ID_TAG);
    // And K really reaches native: dropping it changes native's tag too.
    const { secret: _secret, ...neither } = secretOnly;
    expect(hex(await native.argon2(neither))).not.toBe(hex(fromNative));
  });
});
