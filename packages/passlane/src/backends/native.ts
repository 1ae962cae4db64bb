import { scrypt } from 'node:crypto';
import { hashRaw, type Algorithm, type Version } from '@node-rs/argon2';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import { decodeBcryptBase64 } from '../encoding.js';
import { BackendUnavailableError } from '../errors.js';
import type { Argon2Algorithm, HashingBackend } from './types.js';

// The binding declares these as `const enum`s, which isolatedModules can't read; same values.
const ALGORITHM: Record<Argon2Algorithm, Algorithm> = {
  argon2d: 0 as Algorithm,
  argon2i: 1 as Algorithm,
  argon2id: 2 as Algorithm,
};
const VERSION = { 0x10: 0 as Version, 0x13: 1 as Version };

/**
 * @node-rs/argon2 and @node-rs/bcrypt run on the libuv threadpool, so the event loop stays free;
 * node:crypto's scrypt likewise. This module is imported dynamically: a binding that fails to
 * load fails the import, and the caller falls back to WASM.
 */
export function createNativeBackend(): HashingBackend {
  return {
    name: 'native',
    async argon2(input) {
      if (input.associatedData?.length) {
        throw new BackendUnavailableError('@node-rs/argon2 does not accept argon2 associated data');
      }
      const tag = await hashRaw(input.password, {
        ...(input.secret?.length && { secret: input.secret }),
        algorithm: ALGORITHM[input.algorithm],
        version: VERSION[input.version],
        memoryCost: input.memoryKiB,
        timeCost: input.passes,
        parallelism: input.lanes,
        outputLen: input.tagLength,
        salt: input.salt,
      });
      return new Uint8Array(tag.buffer, tag.byteOffset, tag.byteLength);
    },
    async bcryptChecksum(password, setting) {
      const cost = Number(setting.slice(4, 6));
      const salt = decodeBcryptBase64(setting.slice(7, 29)).subarray(0, 16);
      const full = await bcryptHash(password, cost, salt);
      return full.slice(-31);
    },
    scrypt({ password, salt, N, r, p, dkLen }) {
      return new Promise((resolve, reject) => {
        // Node refuses above maxmem (32 MiB default); the stored-hash bounds already capped N and r.
        const maxmem = 128 * N * r * 2 + 1024 * 1024;
        scrypt(password, salt, dkLen, { N, r, p, maxmem }, (error, key) => {
          if (error) reject(error);
          else resolve(new Uint8Array(key.buffer, key.byteOffset, key.byteLength));
        });
      });
    },
  };
}
