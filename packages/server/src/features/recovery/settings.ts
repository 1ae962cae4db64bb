/**
 * Password reset and email verification (reasons in README.md here). config/recovery-config.ts
 * reads them from the environment; in code, spread DEFAULT_RECOVERY_CONFIG.
 */
export interface RecoveryConfig {
  /** How long a reset link works (PASSLANE_RESET_TOKEN_TTL_S). */
  resetTokenSeconds: number;
  /** How long a verification link works (PASSLANE_VERIFY_TOKEN_TTL_S). */
  verifyTokenSeconds: number;
  /** Wrong tokens presented for an account's outstanding one before it is voided. */
  wrongTokenLimit: number;
  /** Reset and verification mails per account per hour (PASSLANE_RECOVERY_MAILS_PER_HOUR). */
  mailsPerAccountPerHour: number;
  /** Registration sends a verification mail and answers 202 for new and taken emails alike (PASSLANE_EMAIL_VERIFICATION). */
  emailVerification: boolean;
  /** A correct login on an unverified account answers 403 (PASSLANE_REQUIRE_VERIFIED_EMAIL). */
  requireVerifiedEmail: boolean;
}

/**
 * - Reset links work 1 hour (OWASP's forgot-password guidance: short-lived), verification links
 *   24 hours (a person may read the mail the next day; it proves only the mailbox).
 * - 5 wrong tokens against an account's outstanding one void it: the secret has 256 bits, so this
 *   only stops a confused client from probing, and a new request makes a new one.
 * - 3 mails per account per hour: enough for "I did not get it", too few to flood a mailbox.
 */
export const DEFAULT_RECOVERY_CONFIG: Readonly<RecoveryConfig> = {
  resetTokenSeconds: 3600,
  verifyTokenSeconds: 86_400,
  wrongTokenLimit: 5,
  mailsPerAccountPerHour: 3,
  emailVerification: false,
  requireVerifiedEmail: false,
};
