import type { BackendChoice, PepperOptions, VerifyBudget } from 'passlane/common';

/**
 * How the accounts' passwords are hashed: what a deployment sets of the core's hasher options
 * (packages/passlane), on top of the host's own bounds (wiring/platform.ts).
 */
export interface HasherConfig {
  /** PASSLANE_ARGON2_BACKEND: `auto` (unset), `native` or `wasm`. */
  backend?: BackendChoice;
  /** PASSLANE_PEPPER_KEYS: unset means no pepper. */
  pepper?: PepperOptions;
  /**
   * PASSLANE_VERIFY_MEMORY_MB (on Lambda, the function's memory by default) and
   * PASSLANE_VERIFY_TIME_MS: what one verify may use, so stored hashes that cannot fit are refused.
   */
  verifyBudget: VerifyBudget;
  /** On Lambda, where CPU comes in proportion to memory. */
  onLambda: boolean;
}

/** The key of the email fingerprints in logs and counter keys (fingerprint.ts). */
export interface FingerprintConfig {
  /**
   * PASSLANE_FINGERPRINT_KEY: the HMAC key email fingerprints are made with (logs, counter keys),
   * so a list of emails cannot be matched against them. A secret (`_PARAMETER` on Lambda).
   */
  key?: Uint8Array<ArrayBuffer>;
  /** PASSLANE_DATA_DIR: where a developer's machine keeps a generated key when none is set. */
  localKeyDir: string;
  /** On Lambda a generated key would differ per container: the key must be configured. */
  onLambda: boolean;
}

/** At least 32 random bytes: the HMAC-SHA-256 key of the fingerprints (a shorter one weakens them). */
export const MIN_FINGERPRINT_KEY_BYTES = 32;

/**
 * The limits on attempts that registration, password change and the reset requests count
 * (enforce-rate-limits.ts), and the window the refresh's failures are counted in. The login's
 * own limits extend them (features/login/settings.ts `RateLimits`, with the defaults and reasons).
 */
export interface AttemptLimits {
  /** Failed logins (and registration attempts) per source (IPv4 address, IPv6 /64) per window. */
  perSource: number;
  windowSeconds: number;
  /** Password-change attempts per account per window: only a token holder can make them. */
  passwordChangePerAccount: number;
}
