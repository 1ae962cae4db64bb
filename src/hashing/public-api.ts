// What both entry points (Node and edge) export besides their own createPasswordHasher.
export * from './errors.js';
export type { Argon2Policy, PasswordRules, StoredHashLimits } from './policy.js';
export { DEFAULT_ARGON2_POLICY, DEFAULT_PASSWORD_RULES, DEFAULT_STORED_HASH_LIMITS, OWASP_ARGON2ID_FLOOR, meetsOwaspFloor } from './policy.js';
export type { ConcurrencyOptions } from './limiter.js';
export type { PepperOptions } from './pepper.js';
// The env readers the hasher uses, for callers that build options themselves.
export { readPepperKeys as pepperOptionsFromEnv, readArgon2Backend } from '../config/hasher-config.js';
export { ConfigError } from '../config/config-error.js';
export type { BackendChoice, HashDescription, HasherLogger, PasswordHasher, PasswordHasherOptions, VerifyResult } from './create-password-hasher.js';
export type { BackendName } from './backends/types.js';
export { detectRuntime, type RuntimeName } from './detect-runtime.js';
