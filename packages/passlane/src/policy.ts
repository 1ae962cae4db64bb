import { InvalidOptionsError } from './errors.js';

/** Parameters for new argon2id hashes. See SECURITY.md next to this file for the reasoning. */
export interface Argon2Policy {
  /** m, KiB */
  memoryKiB: number;
  /** t */
  passes: number;
  /** p */
  lanes: number;
  saltLength: number;
  tagLength: number;
}

/** OWASP Password Storage Cheat Sheet, first argon2id configuration. */
export const DEFAULT_ARGON2_POLICY: Readonly<Argon2Policy> = Object.freeze({
  memoryKiB: 19456,
  passes: 2,
  lanes: 1,
  saltLength: 16,
  tagLength: 32,
});

/** OWASP's equal-strength argon2id table (p=1): any policy must meet one row in both columns. */
export const OWASP_ARGON2ID_FLOOR: ReadonlyArray<{ memoryKiB: number; passes: number }> = Object.freeze([
  { memoryKiB: 47104, passes: 1 },
  { memoryKiB: 19456, passes: 2 },
  { memoryKiB: 12288, passes: 3 },
  { memoryKiB: 9216, passes: 4 },
  { memoryKiB: 7168, passes: 5 },
]);

export function meetsOwaspFloor(policy: Pick<Argon2Policy, 'memoryKiB' | 'passes'>): boolean {
  return OWASP_ARGON2ID_FLOOR.some((row) => policy.memoryKiB >= row.memoryKiB && policy.passes >= row.passes);
}

/**
 * Upper bounds on the parameters read from a stored hash, checked before any work, so a hostile
 * or corrupt record is refused at once instead of costing gigabytes or minutes. Defaults follow
 * Ory Kratos' import limits.
 */
export interface StoredHashLimits {
  maxEncodedLength: number;
  argon2MaxMemoryKiB: number;
  argon2MaxPasses: number;
  /** m × t, in KiB-passes: the work (so the time) of one verify, whatever the split. */
  argon2MaxWork: number;
  argon2MaxLanes: number;
  argon2MaxSaltBytes: number;
  argon2MaxTagBytes: number;
  bcryptMaxCost: number;
  pbkdf2MaxIterations: number;
  scryptMaxN: number;
  scryptMaxR: number;
  scryptMaxP: number;
  /** SHA-crypt `rounds=` (`$5$`, `$6$`, also inside `{CRYPT}`); crypt(3) itself allows up to 999,999,999. */
  shaCryptMaxRounds: number;
  /** log2 of the rounds of phpass `$P$`/`$H$` and Drupal `$S$` (2^log2 MD5 or SHA-512 rounds; the originals allow 30). */
  phpassMaxLog2Rounds: number;
  /**
   * The same records' work: rounds × the 64-byte blocks one round hashes (the previous digest and
   * the password: MD5 blocks, a 128-byte SHA-512 block counting two), so the time of one verify.
   * A record over it for the empty password is refused when parsed; a password longer than its
   * record's rounds allow is refused when verified, before any hashing.
   */
  phpassMaxWork: number;
}

export const DEFAULT_STORED_HASH_LIMITS: Readonly<StoredHashLimits> = Object.freeze({
  maxEncodedLength: 1024,
  argon2MaxMemoryKiB: 1024 * 1024,
  argon2MaxPasses: 10,
  argon2MaxWork: 1024 * 1024 * 10,
  argon2MaxLanes: 16,
  argon2MaxSaltBytes: 64,
  argon2MaxTagBytes: 128,
  bcryptMaxCost: 15,
  pbkdf2MaxIterations: 10_000_000,
  scryptMaxN: 2 ** 17,
  scryptMaxR: 8,
  scryptMaxP: 10,
  // Both run in pure JavaScript (the same code on every runtime) and cost more per round for
  // longer passwords: 1,000,000 rounds take seconds (docs/measurements.md, "Hash speeds behind
  // the verify budget"); it admits passlib's and Ansible's defaults (535,000 for sha256_crypt,
  // 656,000 for sha512_crypt).
  shaCryptMaxRounds: 1_000_000,
  // phpass and Drupal are bounded by their work, which counts the password's length: the count
  // may be anything the originals write.
  phpassMaxLog2Rounds: 30,
  // 2^18 rounds at 1,024 bytes (17 MD5 blocks each), the bound before the password was counted:
  // a few seconds (docs/measurements.md, "Hash speeds behind the verify budget").
  // Every password up to 1,024 bytes verifies against each application's default (WordPress
  // 2^13, Drupal 7 2^15, Drupal 8 2^16); passlib's 2^19 against those up to 487 bytes.
  phpassMaxWork: 2 ** 18 * 17,
});

/** Rules for passwords given to `hash` (verify only enforces the byte bound). */
export interface PasswordRules {
  /** Minimum length in Unicode code points after NFKC (NIST SP 800-63B: 8). */
  minLength: number;
  /** Upper bound in UTF-8 bytes, before and after normalisation. */
  maxBytes: number;
}

export const DEFAULT_PASSWORD_RULES: Readonly<PasswordRules> = Object.freeze({
  minLength: 8,
  maxBytes: 1024,
});

function isInt(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** Validates a policy; refuses one weaker than OWASP's table unless `allowWeak` is set. */
export function resolveArgon2Policy(input: Partial<Argon2Policy> | undefined, allowWeak: boolean): Argon2Policy {
  const policy: Argon2Policy = { ...DEFAULT_ARGON2_POLICY, ...input };
  const checks: Array<[keyof Argon2Policy, number, number]> = [
    ['memoryKiB', 8, 4 * 1024 * 1024],
    ['passes', 1, 100],
    ['lanes', 1, 16],
    ['saltLength', 8, 64],
    ['tagLength', 4, 128],
  ];
  for (const [key, min, max] of checks) {
    if (!isInt(policy[key], min, max)) {
      throw new InvalidOptionsError(`argon2 ${key} must be an integer from ${min} to ${max}`);
    }
  }
  if (policy.memoryKiB < 8 * policy.lanes) {
    throw new InvalidOptionsError('argon2 memoryKiB must be at least 8 x lanes');
  }
  if (!allowWeak) {
    if (!meetsOwaspFloor(policy)) {
      throw new InvalidOptionsError(
        `argon2 m=${policy.memoryKiB} t=${policy.passes} is weaker than every row of OWASP's table ` +
          '(m=47104,t=1 | m=19456,t=2 | m=12288,t=3 | m=9216,t=4 | m=7168,t=5); pass allowWeakParameters to override',
      );
    }
    if (policy.saltLength < 16 || policy.tagLength < 16) {
      throw new InvalidOptionsError('salt and tag must be at least 16 bytes; pass allowWeakParameters to override');
    }
  }
  return policy;
}

export function resolveLimits(input: Partial<StoredHashLimits> | undefined): StoredHashLimits {
  const limits = { ...DEFAULT_STORED_HASH_LIMITS, ...input };
  for (const [key, value] of Object.entries(limits)) {
    if (!isInt(value, 1, Number.MAX_SAFE_INTEGER)) throw new InvalidOptionsError(`limit ${key} must be a positive integer`);
  }
  return limits;
}

export function resolvePasswordRules(input: Partial<PasswordRules> | undefined): PasswordRules {
  const rules = { ...DEFAULT_PASSWORD_RULES, ...input };
  if (!isInt(rules.minLength, 0, 1024)) throw new InvalidOptionsError('minLength must be an integer from 0 to 1024');
  // NIST: at least 64 characters must be accepted; 64 four-byte characters are 256 bytes.
  if (!isInt(rules.maxBytes, 256, 1024 * 1024)) throw new InvalidOptionsError('maxBytes must be an integer from 256 to 1048576');
  return rules;
}
