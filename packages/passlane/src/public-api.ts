// What both entry points (Node and edge) export besides their own createPasswordHasher.
export * from './errors.js';
export type { Argon2Policy, PasswordRules, StoredHashLimits } from './policy.js';
export { DEFAULT_ARGON2_POLICY, DEFAULT_PASSWORD_RULES, DEFAULT_STORED_HASH_LIMITS, OWASP_ARGON2ID_FLOOR, meetsOwaspFloor } from './policy.js';
export type { ConcurrencyOptions } from './limiter.js';
export { isPeppered, type PepperOptions } from './pepper.js';
export { CURRENT_COST_SHAPE } from './create-password-hasher.js';
export type { BackendChoice, HashDescription, HasherLogger, PasswordHasher, PasswordHasherOptions, VerifyResult } from './create-password-hasher.js';
export type { BackendName } from './backends/types.js';
export { RAW_ARGON2_PREFIX } from './schemes/argon2-phc.js';
// What a verify may cost where it runs: limits for stored hashes from a time and memory budget.
export { DEPLOYED_VERIFY_BUDGET, limitsForBudget, tighterLimits, type VerifyBudget } from './verify-budget.js';
export { detectRuntime, type RuntimeName } from './detect-runtime.js';
