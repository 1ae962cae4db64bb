import type { PasswordHasher } from 'passlane/common';
import type { FailureTiming } from '../../accounts/failure-timing.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { LoginGuardStore } from '../../storage/login-guard-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { PasskeyStore } from '../../storage/passkey-store.js';
import type { WebAuthnConfig } from '../../webauthn/relying-party.js';
import type { MfaMailDependencies, SecondFactorDependencies } from '../mfa/dependencies.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { MigrationDependencies } from '../migration/dependencies.js';
import type { MigrationSource } from '../migration/migration-source.js';
import type { PasswordRulesDependencies } from '../password/dependencies.js';
import type { VerificationMailDependencies } from '../recovery/dependencies.js';
import type { StartSessionDependencies } from '../sessions/dependencies.js';
import type { AccessTokens } from '../tokens/dependencies.js';
import type { RateLimits } from './settings.js';

/**
 * POST /login (login.ts): everything, with the signing key, but no password blocklist (a login
 * sets no password; its policy only counts weak passwords).
 */
export type LoginDependencies = StartSessionDependencies &
  VerificationMailDependencies &
  MigrationDependencies &
  PasswordRulesDependencies & {
    hasher: PasswordHasher;
    /** A login's account and failure counters, read in one request (login-guard-store.ts). */
    loginGuard: Pick<LoginGuardStore, 'read' | 'reserve' | 'giveBack' | 'clearFailures' | 'openBreaker' | 'closeBreaker'>;
    /** A known device's attempts are counted in the sessions item (login-attempt.ts). */
    sessions: Pick<SessionStore, 'reserveDeviceAttempt' | 'giveBackDeviceAttempt'>;
    /** An outdated hash is upgraded after a good login. */
    users: Pick<AccountStore, 'replacePasswordHash'>;
    /** Its `clientId` is the one a sign-in event names (finish-login.ts). */
    tokens: Pick<AccessTokens, 'issue' | 'clientId'>;
    /** The MFA token a right password gets on an account with a second factor (its factors come with the login's read). */
    mfa: Pick<MfaStore, 'putLogin'>;
    /** The relying party, when passkeys are on: an account's passkeys are then offered at the MFA step. */
    webauthn?: WebAuthnConfig;
    /** Limits on guessing (settings.ts). */
    rateLimits: RateLimits;
    /**
     * Lazy migration (../migration/README.md): the old system, asked about an email with no
     * account. Absent unless PASSLANE_MIGRATION_URL or PASSLANE_MIGRATION_FUNCTION is set.
     */
    migration?: MigrationSource;
    /** Pads failed logins to the slowest stored shape's verify (login-failure-timing.ts); without it (tests) nothing is padded. */
    failureTiming?: FailureTiming;
  };

/**
 * POST /login/mfa (login-mfa.ts): a login's parts, the MFA token and the factors it is checked
 * against (and their counts of wrong ones), the key that opens TOTP secrets, the mail about a
 * recovery code used or a burst of wrong codes.
 */
export type MfaLoginDependencies = LoginDependencies &
  SecondFactorDependencies & {
    mail: Pick<MfaMailDependencies['mail'], 'mfaChanged'>;
    mfa: Pick<MfaStore, 'putLogin' | 'readLogin' | 'reserveTokenAttempt' | 'consumeLogin' | 'useTotpStep' | 'useRecoveryCode' | 'reserveFactorAttempt'>;
    /** A passkey's assertion at the MFA step: its counter moved on. */
    passkeys: Pick<PasskeyStore, 'recordUse'>;
  };

/** POST /login's service. */
export interface LoginServices {
  login(): Promise<LoginDependencies>;
}

/** POST /login/mfa's service. */
export interface MfaLoginServices {
  mfaLogin(): Promise<MfaLoginDependencies>;
}
