import { DEFAULT_STORED_HASH_LIMITS, type StoredHashLimits } from './policy.js';

/**
 * What one verify may use where it runs: a Lambda function's memory and the part of its timeout
 * a login can spend hashing. A stored hash that needs more cannot be verified there (it would
 * kill the container or time out every login of that account), so it is refused when it is
 * parsed: at import (`passlane import`, with the target function's figures) and, at login,
 * answered like a corrupt record (401, audited).
 */
export interface VerifyBudget {
  /** Memory of the process that verifies, MiB (Lambda: the function's memory size). */
  memoryMiB?: number;
  /** Time one verify may take, ms. */
  timeMs?: number;
}

/**
 * Hash speeds at one full vCPU, slower than measured on current x86_64 and arm64 (the figures:
 * docs/measurements.md, "Hash speeds behind the verify budget"), so a bound never admits what the
 * real hardware cannot do in time. Lambda gives a function CPU in proportion to memory, a full
 * vCPU at 1,769 MiB.
 */
const FULL_VCPU_MIB = 1769;
const ARGON2_KIB_PASSES_PER_MS = 1000;
const BCRYPT_MS_PER_ROUND = 0.1;
const PBKDF2_MS_PER_ITERATION = 0.001;
/**
 * SHA-crypt runs in JavaScript (@noble/hashes) and hashes the password again each round, so a
 * round costs more the longer the password: this is per round at the longest password that
 * reaches it (511 bytes: libxcrypt refuses longer), the measured SHA-512-crypt round rounded up
 * by about 1.7 (docs/measurements.md).
 */
const SHA_CRYPT_MS_PER_ROUND = 0.04;
/**
 * phpass and Drupal are bounded by their work (rounds × 64-byte blocks a round hashes, see
 * phpass.ts), so the password's length counts where it is known. Per block, 1.3 to 2.2 times the
 * measured MD5 and SHA-512 blocks (docs/measurements.md), which keeps 17 blocks (1,024 bytes, the
 * default maxBytes) within the 0.03 ms a round assumed before the password's length counted:
 * every record a budget admitted then still verifies every password up to 1,024 bytes.
 */
const PHPASS_MS_PER_BLOCK = 0.00175;
/** crypt_private's fewest rounds (2^7) at phpass's longest password (4,096 bytes, 65 blocks). */
const PHPASS_MIN_WORK = 2 ** 7 * 65;
/** Half the memory for the hash; the rest is Node, the bundle, the SDK and the request. */
const HASH_SHARE_OF_MEMORY = 0.5;

/** What serverless.yml gives the functions that verify (1,024 MiB; half of the 10 s timeout). */
export const DEPLOYED_VERIFY_BUDGET: Readonly<Required<VerifyBudget>> = Object.freeze({ memoryMiB: 1024, timeMs: 5000 });

/** The stored-hash limits that fit `budget`, never looser than the defaults. */
export function limitsForBudget(budget: VerifyBudget, onLambda: boolean): Partial<StoredHashLimits> {
  const limits = budgetLimits(budget, onLambda);
  for (const key of Object.keys(limits) as (keyof StoredHashLimits)[]) limits[key] = Math.min(limits[key]!, DEFAULT_STORED_HASH_LIMITS[key]);
  return limits;
}

/** The tighter of two sets of limits, key by key (a host's own and the budget's). */
export function tighterLimits(a: Partial<StoredHashLimits> = {}, b: Partial<StoredHashLimits> = {}): Partial<StoredHashLimits> {
  const merged: Partial<StoredHashLimits> = { ...a };
  for (const [key, value] of Object.entries(b) as [keyof StoredHashLimits, number][]) merged[key] = Math.min(merged[key] ?? value, value);
  return merged;
}

function budgetLimits(budget: VerifyBudget, onLambda: boolean): Partial<StoredHashLimits> {
  const limits: Partial<StoredHashLimits> = {};
  if (budget.memoryMiB !== undefined) {
    const kib = Math.floor(budget.memoryMiB * 1024 * HASH_SHARE_OF_MEMORY);
    limits.argon2MaxMemoryKiB = kib;
    // scrypt uses 128 · N · r bytes; at the largest r (8), N may be the largest power of two that fits.
    limits.scryptMaxN = 2 ** Math.floor(Math.log2((kib * 1024) / (128 * 8)));
  }
  if (budget.timeMs !== undefined) {
    // Off Lambda, assume one vCPU; on it, the share its memory buys.
    const vcpu = onLambda && budget.memoryMiB !== undefined ? Math.min(1, budget.memoryMiB / FULL_VCPU_MIB) : 1;
    const ms = budget.timeMs * vcpu;
    limits.argon2MaxWork = Math.max(1, Math.floor(ms * ARGON2_KIB_PASSES_PER_MS));
    limits.bcryptMaxCost = Math.max(4, Math.floor(Math.log2(ms / BCRYPT_MS_PER_ROUND)));
    limits.pbkdf2MaxIterations = Math.max(1, Math.floor(ms / PBKDF2_MS_PER_ITERATION));
    // Never below the formats' own minimums (1000 rounds, 2^7), as bcrypt keeps cost 4.
    limits.shaCryptMaxRounds = Math.max(1000, Math.floor(ms / SHA_CRYPT_MS_PER_ROUND));
    limits.phpassMaxWork = Math.max(PHPASS_MIN_WORK, Math.floor(ms / PHPASS_MS_PER_BLOCK));
  }
  return limits;
}
