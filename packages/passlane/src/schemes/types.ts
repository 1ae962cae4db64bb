import type { Argon2Algorithm, Argon2Version, HashingBackend } from '../backends/types.js';
import type { StoredHashLimits } from '../policy.js';

/** What a stored hash turns into once parsed and bounds-checked: enough to verify and to judge it. */
export interface ParsedHash {
  /** Reported to callers, e.g. `argon2id`, `bcrypt`, `django_pbkdf2_sha256`. */
  readonly scheme: string;
  /** Working memory one verify needs, for the concurrency limiter. */
  readonly memoryKiB: number;
  /**
   * The parameters a verify's time depends on (bcrypt's cost, PBKDF2's iterations, argon2's m, t,
   * p...), never salt or digest: records of one scheme with equal `cost` take the same time to
   * verify. Absent where the scheme fixes its cost. Failed logins are padded by it (costShape).
   */
  readonly cost?: string;
  /** Set for plain argon2 PHC hashes, so needsRehash can compare them with the policy. */
  readonly argon2?: {
    algorithm: Argon2Algorithm;
    version: Argon2Version;
    memoryKiB: number;
    passes: number;
    lanes: number;
    saltLength: number;
    tagLength: number;
  };
  /**
   * Set when only the first N bytes of the UTF-8 password reach the digest (bcrypt: 72), so a
   * longer password that verified may differ from the real one past that point.
   */
  readonly inputLimitBytes?: number;
  /**
   * Set for fast digests (unsalted or salted MD5/SHA-1/SHA-2, a few rounds at most): crackable at
   * billions of guesses a second on one GPU, so the inventory flags them and rehash wraps them first.
   */
  readonly fastDigest?: true;
  /** Set on a wrapped record whose inner format is a fast digest: handled with them (rehash's first pass). */
  readonly wrapsFastDigest?: true;
  /** The stored tag or checksum, decoded: what a correct password recomputes. */
  readonly digest: Uint8Array;
  /** The digest as written: always the stored value's last field, which wrapping replaces. */
  readonly digestText: string;
  /** A digest of the same length whose bytes are all zero, in the format's own alphabet. */
  readonly zeroDigestText: string;
  /**
   * The digest `password` gives under this record's salt and parameters. Never throws for a wrong
   * password; where the work grows with the password (phpass, Drupal), one longer than the
   * record's rounds allow within the limits is refused, before any hashing
   * (HashParametersOutOfBoundsError, as for a record over its bounds).
   */
  computeDigest(password: string, context: VerifyContext): Promise<Uint8Array>;
}

export interface VerifyContext {
  backend: HashingBackend;
  /** The bytes passlane's own argon2 hashes take (NFKC); legacy schemes use the raw UTF-8 instead. */
  normalise(password: string): Uint8Array;
}

/** One family of stored-hash formats. `parse` is cheap and strict: it does no hashing. */
export interface HashScheme {
  matches(stored: string): boolean;
  parse(stored: string, limits: StoredHashLimits): ParsedHash;
}
