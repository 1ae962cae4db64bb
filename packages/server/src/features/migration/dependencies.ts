import type { PasswordHasher } from 'passlane/common';
import type { Audit } from '../../accounts/audit-events.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { SignupHook } from '../../hooks/signup-hook.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { RecoveryConfig } from '../recovery/settings.js';
import type { AccountEvents } from '../../events/account-events.js';

/** What asking the old system (at login and registration) and creating the account it vouched for take (migrate-account.ts). */
export interface MigrationDependencies {
  hasher: Pick<PasswordHasher, 'hash' | 'verifyDummy'>;
  users: Pick<AccountStore, 'createUser'>;
  /** Whether a new account's email starts unverified. */
  recovery: Pick<RecoveryConfig, 'emailVerification'>;
  fingerprint: EmailFingerprint;
  audit: Audit;
  newUserId?: () => string;
  /** Asked before a vouched-for account is created (accounts/check-signup.ts); absent: nothing is asked. */
  signupHook?: SignupHook;
  now: () => Date;
  /** `user.registered` (method `migration`) recorded with the migrated account. */
  accountEvents: AccountEvents;
}
