/**
 * The login's settings: its limits on guessing, which registration and password change share
 * (accounts/enforce-rate-limits.ts), and its failure timing. config/rate-limit-config.ts reads them
 * from the environment; in code, spread DEFAULT_RATE_LIMITS and change what you need.
 */
import type { AttemptLimits } from '../../accounts/settings.js';

/** Limits on guessing (login, registration, password change); defaults and reasons below. */
export interface RateLimits extends AttemptLimits {
  login: LoginLimits;
}

/** A login's limits: failures (never attempts) before the verify, and a bound on good logins. */
export interface LoginLimits {
  /** Failures per (account, source) before each further attempt waits. */
  failuresPerAccountSource: number;
  /** The first wait after that; each further failure doubles it, up to delayMaxSeconds. */
  delayBaseSeconds: number;
  delayMaxSeconds: number;
  /** Consecutive failures on an account, from anywhere, before it waits accountLockSeconds. */
  accountFailureCeiling: number;
  accountLockSeconds: number;
  /** Failed logins never answer faster than this (ms); they also wait for the slowest stored shape's verify. */
  failureFloorMs: number;
  /**
   * Good logins per account per window, and per source per window for logins without a known
   * device: one account, or one address, cannot take all the hashing with right passwords.
   */
  successesPerAccount: number;
  successesPerSource: number;
  /**
   * The slowest stored verify in current argon2id verifies: failed logins wait at least this many
   * current verifies, before the container has seen a legacy record (login-failure-timing.ts).
   */
  failurePadFactor?: number;
}

/**
 * Why these numbers (packages/server/src/features/login/LIMITS.md has the whole reasoning):
 * - 5 failures per account and source, then delays doubling from 30 s up to 15 min: a user who
 *   mistypes a few times is not slowed; a guesser from one address gets about 100 guesses a day.
 * - 100 consecutive failures per account, NIST SP 800-63B-4's ceiling, then the account waits
 *   an hour from the last failure (or a password change): only an attacker spread over many
 *   sources gets there, and the per-source limits slow each of those.
 * - 100 failures per source in 5 minutes (IPv6 counted per /64): a credential-stuffing source
 *   is slowed across all accounts. Registration counts attempts against the same limit.
 * - Failed logins wait for the slowest stored shape's verify this container has seen, at least
 *   the floor (0 ms) and, when set, the pad factor times the current argon2id verify (unset).
 * - 30 good logins per account and 300 per source (without a known device) per 5 minutes: far
 *   more than people log in, and a flood of right passwords to one's own accounts cannot take
 *   the hashing other users' logins need.
 */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = {
  perSource: 100,
  windowSeconds: 300,
  passwordChangePerAccount: 10,
  login: { failuresPerAccountSource: 5, delayBaseSeconds: 30, delayMaxSeconds: 900, accountFailureCeiling: 100, accountLockSeconds: 3600, failureFloorMs: 0, successesPerAccount: 30, successesPerSource: 300 },
};
