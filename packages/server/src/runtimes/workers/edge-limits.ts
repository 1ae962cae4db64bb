/**
 * What one verify may use in an isolate, apart from the bundle that runs it (edge-platform.ts
 * imports WASM), so tests can read the same figures.
 */
import type { StoredHashLimits, VerifyBudget } from 'passlane/common';

/**
 * Stored hashes that would need more memory than an isolate has (128 MB, shared with the script)
 * are refused with ERR_HASH_PARAMS_OUT_OF_BOUNDS (answered like a wrong password, and audited)
 * instead of killing the isolate and every request in it. The defaults allow argon2 up to 1 GiB
 * and scrypt N=2^17, r=8 (128 MiB). Such records still verify on Lambda, whose next good login
 * replaces them.
 */
export const ISOLATE_HASH_LIMITS: Readonly<Partial<StoredHashLimits>> = Object.freeze({ argon2MaxMemoryKiB: 64 * 1024, scryptMaxN: 2 ** 16 });

/**
 * The time one verify may take when PASSLANE_VERIFY_TIME_MS is not set. An isolate verifies one
 * password at a time on its only thread, and a request waits at most 2 s for it (the hasher's
 * queue timeout, edge-platform.ts): a stored cost past ~1 s (SHA-crypt past ~25,000 rounds,
 * bcrypt past cost 13, PBKDF2 past 1,000,000 iterations, at the speeds verify-budget.ts assumes)
 * would turn every login queued behind it into a `temporarily_unavailable`. Such records are refused like the ones
 * above, and verify on Lambda.
 */
export const ISOLATE_VERIFY_BUDGET: Readonly<VerifyBudget> = Object.freeze({ timeMs: 1000 });
