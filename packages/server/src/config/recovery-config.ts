import { DEFAULT_RECOVERY_CONFIG, type RecoveryConfig } from '../features/recovery/settings.js';
import { ConfigError } from './config-error.js';
import { oneOf, wholeNumber, type Env } from './env.js';

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
