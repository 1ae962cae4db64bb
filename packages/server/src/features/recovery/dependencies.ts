import type { PasswordHasher } from 'passlane/common';
import type { Audit } from '../../accounts/audit-events.js';
import type { FailureTiming } from '../../accounts/failure-timing.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { AttemptLimits } from '../../accounts/settings.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import type { RateLimitStore } from '../../storage/rate-limit-store.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { NewPasswordDependencies, PasswordRulesDependencies } from '../password/dependencies.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import type { RecoveryConfig } from './settings.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

/** A verification link and its mail (send-verification.ts): registration, an unverified login, the resend. */
export interface VerificationMailDependencies {
  oneTimeTokens: Pick<OneTimeTokenStore, 'put'>;
  mail: Pick<AccountMail, 'emailVerification'>;
  /** Reset and verification settings (settings.ts). */
  recovery: RecoveryConfig;
  /** The account's hourly mail budget. */
  counters: Pick<RateLimitStore, 'hit'>;
  audit: Audit;
  now: () => Date;
}

/** A presented link's token checked and used (use-one-time-token.ts). */
export interface OneTimeTokenDependencies {
  oneTimeTokens: Pick<OneTimeTokenStore, 'read' | 'reserveGuess' | 'giveBackGuess' | 'consume'>;
  recovery: RecoveryConfig;
  audit: Audit;
  now: () => Date;
}

/** POST /password/reset (request-password-reset.ts). */
export interface PasswordResetRequestDependencies {
  users: Pick<AccountStore, 'getUserByEmail'>;
  counters: Pick<RateLimitStore, 'hit'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'put'>;
  mail: Pick<AccountMail, 'passwordReset'>;
  recovery: RecoveryConfig;
  fingerprint: EmailFingerprint;
  /** The per-source limit on requests. */
  rateLimits: Pick<AttemptLimits, 'perSource' | 'windowSeconds'>;
  audit: Audit;
  /** Pads every answer to the slowest seen, so the mail's round trip tells no known address from an unknown one. */
  replyTiming?: FailureTiming;
  now: () => Date;
}

/** POST /password/reset/confirm (confirm-password-reset.ts). */
export type PasswordResetDependencies = OneTimeTokenDependencies &
  AccountEventDependencies &
  PasswordRulesDependencies &
  NewPasswordDependencies & {
    hasher: PasswordHasher;
    users: Pick<AccountStore, 'getUserByEmail' | 'replacePasswordHash' | 'markEmailVerified'>;
    /** The mailbox proves control: the second factors' counts of wrong attempts end (features/mfa/factor-failures.ts). */
    mfa: Pick<MfaStore, 'clearFactorFailures'>;
  };

/** POST /email/verify (verify-email.ts). */
export type EmailVerificationDependencies = OneTimeTokenDependencies &
  AccountEventDependencies & {
  users: Pick<AccountStore, 'getUserByEmail' | 'markEmailVerified'>;
  sessions: Pick<SessionStore, 'read' | 'markEmailVerified'>;
};

/** POST /email/verify/resend (verify-email.ts). */
export type VerificationResendDependencies = SessionCheckDependencies &
  VerificationMailDependencies & {
    users: Pick<AccountStore, 'getUserById'>;
    fingerprint: EmailFingerprint;
  };

/**
 * The recovery routes, served together (they check access tokens and issue none: their
 * function holds the public keys, the hasher for a new password and the mail sender).
 */
export type RecoveryDependencies = PasswordResetRequestDependencies & PasswordResetDependencies & EmailVerificationDependencies & VerificationResendDependencies;

/** The recovery routes' service. */
export interface RecoveryServices {
  recovery(): Promise<RecoveryDependencies>;
}
