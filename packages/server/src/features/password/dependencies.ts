import type { PasswordHasher } from 'passlane/common';
import type { Audit } from '../../accounts/audit-events.js';
import type { AttemptCounterDependencies } from '../../accounts/enforce-rate-limits.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { LoginGuardStore } from '../../storage/login-guard-store.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import type { EndOtherSessionsDependencies, SessionCheckDependencies } from '../sessions/dependencies.js';
import type { PasswordPolicy } from './rules/policy.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

/**
 * The rules for a password being set (rules/README.md): register, change and reset call
 * `checkNewPassword` (check-new-password.ts); login only counts, cheaply, passwords the rules
 * would now refuse. Where no password is set (the login function) the policy holds no blocklist.
 */
export interface PasswordRulesDependencies {
  passwordPolicy: PasswordPolicy;
  audit: Audit;
}

/** After a new password is stored (change or reset): the account's failed logins cleared and its links voided. */
export interface NewPasswordDependencies extends EndOtherSessionsDependencies {
  loginGuard: Pick<LoginGuardStore, 'clearAccountFailures'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'discardAll'>;
}

/**
 * POST /password (change-password.ts): it checks access tokens and issues none, so its function
 * holds the public keys and never the signing key.
 */
export type PasswordChangeDependencies = SessionCheckDependencies &
  AttemptCounterDependencies &
  AccountEventDependencies &
  PasswordRulesDependencies &
  NewPasswordDependencies & {
    hasher: PasswordHasher;
    users: Pick<AccountStore, 'getUserById' | 'replacePasswordHash'>;
    /** Keyed email fingerprints for logs and counter keys. */
    fingerprint: EmailFingerprint;
  };

/** POST /password's service. */
export interface PasswordServices {
  password(): Promise<PasswordChangeDependencies>;
}
