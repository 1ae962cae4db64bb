/**
 * Argon2 on WebAssembly (argon2.c compiled to wasm32 + SIMD128), for runtimes without native
 * addons: workerd, Vercel Edge, browsers.
 *
 * Takes an already compiled `WebAssembly.Module` because workerd forbids compiling from bytes at
 * run time; edge code gets one from `import mod from './argon2.wasm'`, Node from
 * `loadArgon2WasmModule()` in load-wasm-module-node.ts.
 *
 * One instance serves every call: its linear memory grows to the largest `m` seen and is then
 * reused, so memory stays flat. WebAssembly memory never shrinks, so after an unusually large hash
 * call `reset()` to drop the instance (and its memory) and start over small.
 */
import type { Argon2Algorithm, Argon2RawInput, Argon2Version } from '../types.js';

interface Argon2Exports {
  memory: WebAssembly.Memory;
  argon2_scratch(len: number): number;
  argon2_hash(
    type: number,
    version: number,
    m: number,
    t: number,
    p: number,
    pwdLen: number,
    saltLen: number,
    secretLen: number,
    adLen: number,
    tagLen: number,
  ): number;
}

const TYPE_IDS: Record<Argon2Algorithm, number> = { argon2d: 0, argon2i: 1, argon2id: 2 };
const UINT32_MAX = 0xffff_ffff;
/** RFC 9106 allows up to 2^24 - 1 lanes; they run one after another here. */
export const ARGON2_WASM_MAX_LANES = 0xff_ffff;
/** wasm32 addresses 4 GiB; keep a margin for the stack, statics and the input scratch area. */
export const ARGON2_WASM_MAX_MEMORY_KIB = 4 * 1024 * 1024 - 1024;
/** Caps on argon2's secret K and associated data X (RFC 9106 allows 2^32 - 1 bytes); as in argon2.c. */
export const ARGON2_WASM_MAX_SECRET_BYTES = 64;
export const ARGON2_WASM_MAX_AD_BYTES = 1024;

const EMPTY = new Uint8Array(0);

/** Status codes of argon2_hash() in argon2.c. */
const STATUS_MESSAGES: Record<number, string> = {
  1: 'invalid type',
  2: 'invalid version',
  3: 'invalid memory size',
  4: 'invalid number of passes',
  5: 'invalid number of lanes',
  6: 'salt too short',
  7: 'tag too short',
  8: 'inputs larger than the scratch area',
  9: 'WebAssembly memory could not grow',
  10: `secret longer than ${ARGON2_WASM_MAX_SECRET_BYTES} bytes`,
  11: `associated data longer than ${ARGON2_WASM_MAX_AD_BYTES} bytes`,
};

function checkInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`argon2: ${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

/** Throws a RangeError for parameters the C code would reject, with a clearer message. */
export function validateArgon2Input(input: Argon2RawInput): void {
  if (!Object.hasOwn(TYPE_IDS, input.algorithm)) {
    throw new RangeError(`argon2: unknown algorithm ${String(input.algorithm)}`);
  }
  if (input.version !== 0x10 && input.version !== 0x13) {
    throw new RangeError(`argon2: unsupported version ${String(input.version as Argon2Version)}`);
  }
  checkInt('lanes', input.lanes, 1, ARGON2_WASM_MAX_LANES);
  checkInt('passes', input.passes, 1, UINT32_MAX);
  checkInt('memoryKiB', input.memoryKiB, 8 * input.lanes, ARGON2_WASM_MAX_MEMORY_KIB);
  checkInt('salt length', input.salt.length, 8, UINT32_MAX);
  checkInt('tagLength', input.tagLength, 4, UINT32_MAX);
  checkInt('secret length', input.secret?.length ?? 0, 0, ARGON2_WASM_MAX_SECRET_BYTES);
  checkInt('associated data length', input.associatedData?.length ?? 0, 0, ARGON2_WASM_MAX_AD_BYTES);
}

export class Argon2Wasm {
  readonly #module: WebAssembly.Module;
  #exports: Argon2Exports;

  private constructor(module: WebAssembly.Module, exports: Argon2Exports) {
    this.#module = module;
    this.#exports = exports;
  }

  static async instantiate(module: WebAssembly.Module): Promise<Argon2Wasm> {
    return new Argon2Wasm(module, await Argon2Wasm.#newInstance(module));
  }

  static async #newInstance(module: WebAssembly.Module): Promise<Argon2Exports> {
    // The Module overload resolves to an Instance (not {module, instance}); the module imports nothing.
    const instance = await WebAssembly.instantiate(module, {});
    return instance.exports as unknown as Argon2Exports;
  }

  /** Current size of the instance's linear memory, in bytes. */
  get memoryBytes(): number {
    return this.#exports.memory.buffer.byteLength;
  }

  /**
   * Replaces the instance with a fresh one, releasing the old linear memory to the GC. Hashes run
   * in the meantime use the old instance, so no call ever waits for or misses an instance.
   */
  async reset(): Promise<void> {
    this.#exports = await Argon2Wasm.#newInstance(this.#module);
  }

  /** Raw argon2 tag. Synchronous: CPU-bound for the whole call, as the native binding's sync API. */
  hash(input: Argon2RawInput): Uint8Array {
    validateArgon2Input(input);
    const { password, salt, tagLength } = input;
    const secret = input.secret ?? EMPTY;
    const associatedData = input.associatedData ?? EMPTY;
    const wasm = this.#exports;

    // Scratch layout (see argon2.c): P || S || K || X, overwritten by the tag.
    const inputLength = password.length + salt.length + secret.length + associatedData.length;
    const scratchLength = Math.max(inputLength, tagLength);
    if (scratchLength > UINT32_MAX) throw new RangeError('argon2: password too long');
    const scratch = wasm.argon2_scratch(scratchLength);
    if (scratch === 0) throw new RangeError('argon2: WebAssembly memory could not grow');
    // Views are taken after each call that may grow memory: growing detaches the old ArrayBuffer.
    let heap = new Uint8Array(wasm.memory.buffer);
    let offset = scratch;
    for (const part of [password, salt, secret, associatedData]) {
      heap.set(part, offset);
      offset += part.length;
    }

    const status = wasm.argon2_hash(
      TYPE_IDS[input.algorithm],
      input.version,
      input.memoryKiB,
      input.passes,
      input.lanes,
      password.length,
      salt.length,
      secret.length,
      associatedData.length,
      tagLength,
    );
    if (status !== 0) {
      // argon2_hash() wipes the inputs once H0 is computed; on early errors P and K are still here.
      new Uint8Array(wasm.memory.buffer).fill(0, scratch, scratch + inputLength);
      throw new RangeError(`argon2: ${STATUS_MESSAGES[status] ?? `error ${status}`}`);
    }
    heap = new Uint8Array(wasm.memory.buffer);
    const tag = heap.slice(scratch, scratch + tagLength);
    heap.fill(0, scratch, scratch + tagLength); // the instance outlives the call: leave no tag behind
    return tag;
  }
}
