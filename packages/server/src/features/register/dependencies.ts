import type { PasswordHasher } from 'passlane/common';
import type { AttemptCounterDependencies } from '../../accounts/enforce-rate-limits.js';
import type { SignupCheckDependencies } from '../../accounts/check-signup.js';
import type { FailureTiming } from '../../accounts/failure-timing.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { AccountEventDependencies } from '../../events/account-events.js';
import type { MigrationDependencies } from '../migration/dependencies.js';
import type { MigrationSource } from '../migration/migration-source.js';
import type { PasswordRulesDependencies } from '../password/dependencies.js';
import type { VerificationMailDependencies } from '../recovery/dependencies.js';

/**
 * POST /register (register.ts): it issues and checks no token and reads no login state, so its
 * function needs no signing key and its role reads no account or session. It keys verification
 * tokens by the email's fingerprint. With lazy migration (`migration`) it asks the old system
 * whether it still holds the email.
 */
export type RegisterDependencies = AttemptCounterDependencies &
  PasswordRulesDependencies &
  VerificationMailDependencies &
  AccountEventDependencies &
  Pick<MigrationDependencies, 'fingerprint' | 'audit' | 'newUserId' | 'now'> &
  SignupCheckDependencies & {
    hasher: PasswordHasher;
    users: Pick<AccountStore, 'createUser'>;
    mail: Pick<AccountMail, 'registrationAttempt'>;
    /**
     * Lazy migration (../migration/README.md): the old system, asked whether it holds the email.
     * Absent unless PASSLANE_MIGRATION_URL or PASSLANE_MIGRATION_FUNCTION is set.
     */
    migration?: MigrationSource;
    /**
     * Pads the answers that must not tell a known address from an unknown one (with
     * verification on) to the slowest seen; without it nothing is padded.
     */
    replyTiming?: FailureTiming;
  };

/** POST /register's service. */
export interface RegisterServices {
  register(): Promise<RegisterDependencies>;
}
