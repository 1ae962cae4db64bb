import { ConfigError } from './config-error.js';
import { oneOf, wholeNumber, type Env } from './env.js';

/** Password reset and email verification; reasons in packages/server/src/features/recovery/README.md. */
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

export function readRecoveryConfig(env: Env): RecoveryConfig {
  const d = DEFAULT_RECOVERY_CONFIG;
  const flag = (name: string, fallback: boolean) => {
    const value = oneOf(env, name, ['true', 'false']);
    return value === undefined ? fallback : value === 'true';
  };
  const emailVerification = flag('PASSLANE_EMAIL_VERIFICATION', d.emailVerification);
  const requireVerifiedEmail = flag('PASSLANE_REQUIRE_VERIFIED_EMAIL', d.requireVerifiedEmail);
  // Requiring what is never sent would lock every new account out.
  if (requireVerifiedEmail && !emailVerification) {
    throw new ConfigError('PASSLANE_REQUIRE_VERIFIED_EMAIL', 'needs PASSLANE_EMAIL_VERIFICATION=true (no verification mail would ever be sent)');
  }
  return {
    resetTokenSeconds: wholeNumber(env, 'PASSLANE_RESET_TOKEN_TTL_S', { fallback: d.resetTokenSeconds, min: 300, max: 86_400 }),
    verifyTokenSeconds: wholeNumber(env, 'PASSLANE_VERIFY_TOKEN_TTL_S', { fallback: d.verifyTokenSeconds, min: 300, max: 30 * 86_400 }),
    wrongTokenLimit: d.wrongTokenLimit,
    mailsPerAccountPerHour: wholeNumber(env, 'PASSLANE_RECOVERY_MAILS_PER_HOUR', { fallback: d.mailsPerAccountPerHour, min: 1, max: 100 }),
    emailVerification,
    requireVerifiedEmail,
  };
}
