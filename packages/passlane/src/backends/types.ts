/**
 * The primitives a runtime adapter provides. Everything above this interface (formats, policy,
 * pepper, limits) is shared; only these few functions differ between native and WASM.
 */
export type Argon2Algorithm = 'argon2d' | 'argon2i' | 'argon2id';

/** 0x10 is argon2 v1.0 (PHC `v=16` or no `v=`), 0x13 is v1.3 (`v=19`). */
export type Argon2Version = 0x10 | 0x13;

export interface Argon2RawInput {
  algorithm: Argon2Algorithm;
  version: Argon2Version;
  /** m, in KiB */
  memoryKiB: number;
  /** t */
  passes: number;
  /** p */
  lanes: number;
  password: Uint8Array;
  salt: Uint8Array;
  tagLength: number;
  /** Argon2's optional secret K. Not used by stored-hash formats; here for RFC 9106's vectors. */
  secret?: Uint8Array;
  /** Argon2's optional associated data X. @node-rs/argon2 cannot take it (see native.ts). */
  associatedData?: Uint8Array;
}

export interface ScryptInput {
  password: Uint8Array;
  salt: Uint8Array;
  /** CPU/memory cost, a power of two */
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

export type BackendName = 'native' | 'wasm';

export interface HashingBackend {
  readonly name: BackendName;
  /** Raw argon2 tag. */
  argon2(input: Argon2RawInput): Promise<Uint8Array>;
  /**
   * bcrypt of `password` (the UTF-8 bytes the original system fed to bcrypt, untruncated: the
   * backend applies bcrypt's own 72-byte limit) under `setting` = `$2?$NN$` + 22 salt
   * characters. Returns the 31-character checksum.
   */
  bcryptChecksum(password: Uint8Array, setting: string): Promise<string>;
  scrypt(input: ScryptInput): Promise<Uint8Array>;
}
