import { createNativeBackend } from '../../packages/passlane/src/backends/native.js';
import type { Argon2RawInput, HashingBackend } from '../../packages/passlane/src/backends/types.js';
import { createPasswordHasherWith, type PasswordHasherOptions } from '../../packages/passlane/src/create-password-hasher.js';

/** The real native backend, recording each call, so tests can tell whether (and how) work was done. */
export function recordingBackend(inner: HashingBackend = createNativeBackend()) {
  const argon2Calls: Array<Omit<Argon2RawInput, 'password' | 'salt'>> = [];
  let otherCalls = 0;
  const backend: HashingBackend = {
    name: inner.name,
    argon2(input) {
      const { password: _password, salt: _salt, ...params } = input;
      argon2Calls.push(params);
      return inner.argon2(input);
    },
    bcryptChecksum(password, setting) {
      otherCalls++;
      return inner.bcryptChecksum(password, setting);
    },
    scrypt(input) {
      otherCalls++;
      return inner.scrypt(input);
    },
  };
  return {
    backend,
    argon2Calls,
    get totalCalls() {
      return argon2Calls.length + otherCalls;
    },
  };
}

export function hasherWithBackend(backend: HashingBackend, options: PasswordHasherOptions = {}) {
  return createPasswordHasherWith({ pepper: false, ...options }, { wasm: async () => backend });
}
