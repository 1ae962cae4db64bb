import type { PasswordHasher } from 'passlane/common';
import type { PasswordPolicy } from '../features/password/rules/policy.js';
import type { AccountStore } from '../storage/account-store.js';
import type { LoginGuardStore } from '../storage/login-guard-store.js';
import type { RateLimitStore } from '../storage/rate-limit-store.js';
import type { SessionStore } from '../storage/session-store.js';
import type { OneTimeTokenStore } from '../storage/one-time-token-store.js';
import type { AuditEvent } from './audit-events.js';
import type { FailureTiming } from './failure-timing.js';
import type { EmailFingerprint } from './fingerprint.js';
import type { MigrationSource } from '../features/migration/migration-source.js';
import type { RateLimits } from '../features/login/settings.js';
import type { RecoveryConfig } from '../features/recovery/settings.js';
import type { SessionConfig } from '../features/sessions/settings.js';

/** The token operations the use-cases need; the jose-based service in src/tokens provides them. */
export interface AccessTokens {
  issue(input: { userId: string; sessionId?: string; emailVerified?: boolean; now?: Date }): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }>;
  verify(token: string): Promise<{ userId: string; issuedAt: Date; sessionId?: string }>;
}

/** Everything the use-cases touch, passed in: no globals, so Lambda, the local server and the edge share them. */
export interface AuthDependencies {
  hasher: PasswordHasher;
  /**
   * The rules for a password being set (src/passwords): register, change and reset call
   * `checkNewPassword` (check-new-password.ts); login only counts, cheaply, passwords the rules
   * would now refuse. Where no password is set (the login function) it holds no blocklist.
   */
  passwordPolicy: PasswordPolicy;
  users: Pick<AccountStore, 'createUser' | 'getUserByEmail' | 'getUserById' | 'replacePasswordHash' | 'markEmailVerified'>;
  /** Attempt counters (registration, password change), checked before any hash. */
  counters: Pick<RateLimitStore, 'hit'>;
  /** A login's account and failure counters, read in one request (login-guard-store.ts). */
  loginGuard: Pick<LoginGuardStore, 'read' | 'settle' | 'recordFailure' | 'recordSuccess' | 'clearFailures' | 'clearAccountFailures' | 'openBreaker' | 'closeBreaker'>;
  tokens: AccessTokens;
  /** Every account's sessions, one item each (session-store.ts). */
  sessions: Pick<
    SessionStore,
    'read' | 'readForRefresh' | 'create' | 'rotate' | 'end' | 'purge' | 'markEmailVerified' | 'recordRefreshFailure' | 'recordDeviceFailure'
  >;
  /** Lifetimes and limits of sessions (packages/server/src/features/sessions/settings.ts). */
  sessionConfig: SessionConfig;
  /** Outstanding password-reset and email-verification tokens (one-time-token-store.ts). */
  oneTimeTokens: Pick<OneTimeTokenStore, 'put' | 'read' | 'consume' | 'recordWrongGuess' | 'discard'>;
  /** The mails accounts receive (src/mail). */
  mail: AccountMail;
  /** Reset and verification settings (packages/server/src/features/recovery/settings.ts). */
  recovery: RecoveryConfig;
  /** Keyed email fingerprints for logs and counter keys (fingerprint.ts). */
  fingerprint: EmailFingerprint;
  /** Limits on guessing (packages/server/src/features/login/settings.ts). */
  rateLimits: RateLimits;
  audit(event: AuditEvent): void;
  /**
   * Lazy migration (packages/server/src/features/migration/README.md): the old system, asked at login about an email with
   * no account, and at registration whether it holds the email. Absent unless
   * PASSLANE_MIGRATION_URL or PASSLANE_MIGRATION_FUNCTION is set.
   */
  migration?: MigrationSource;
  /** Pads failed logins to the slowest stored shape's verify (login-failure-timing.ts); without it (tests) nothing is padded. */
  failureTiming?: FailureTiming;
  /**
   * Pads answers that must not tell a known address from an unknown one (password-reset
   * requests, registration with verification on) to the slowest seen; without it nothing is padded.
   */
  replyTiming?: FailureTiming;
  now?: () => Date;
  newUserId?: () => string;
}

/**
 * Registration issues and checks no token and reads no login state: without `tokens`, so its
 * function needs no signing key, and without `loginGuard` and `sessions`, so its role reads no
 * account or session. It keys verification tokens by the email's fingerprint. With lazy
 * migration (`migration`) it asks the old system whether it still holds the email.
 */
export type RegisterDependencies = Omit<AuthDependencies, 'tokens' | 'loginGuard' | 'sessions' | 'sessionConfig'>;

/**
 * Password change, reset and email verification check access tokens and issue none: verification
 * alone, so their functions hold the public keys and never the signing key.
 */
export type AccountDependencies = Omit<AuthDependencies, 'tokens'> & { tokens: Pick<AccessTokens, 'verify'> };

/**
 * Refresh, logout and the session list: tokens and sessions only, so their functions hold no
 * hasher, pepper or fingerprint key (the refresh token names the sessions item itself).
 */
export type SessionDependencies = Pick<AuthDependencies, 'tokens' | 'sessions' | 'sessionConfig' | 'rateLimits' | 'audit' | 'now'>;

/**
 * Logout and the session list only check access tokens: verification alone, so their function
 * holds the public keys and never the signing key.
 */
export type SessionManagementDependencies = Pick<AuthDependencies, 'sessions' | 'audit' | 'now'> & { tokens: Pick<AccessTokens, 'verify'> };

/**
 * The mails an account receives, each with what its template needs; src/mail renders and sends
 * them (SES on AWS, `.eml` files under `npm start`). Never given a password.
 */
export interface AccountMail {
  passwordReset(to: string, token: string, expiresInSeconds: number): Promise<'sent' | 'not_sent' | void>;
  emailVerification(to: string, token: string, expiresInSeconds: number): Promise<'sent' | 'not_sent' | void>;
  /** Someone tried to register with this address, which already has an account. */
  registrationAttempt(to: string): Promise<'sent' | 'not_sent' | void>;
}
