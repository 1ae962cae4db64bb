import type { Audit } from '../../accounts/audit-events.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { RateLimitStore } from '../../storage/rate-limit-store.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import type { SecretBox } from './secret-box.js';
import type { MfaConfig } from './settings.js';

/** A login's second factor checked (check-second-factor.ts): the sealed secret opened, the code spent. */
export interface SecondFactorDependencies {
  mfa: Pick<MfaStore, 'useTotpStep' | 'useRecoveryCode' | 'reserveFactorAttempt'>;
  secretBox: SecretBox;
}

/** The owner's mail about every change to their factors (mail-mfa-change.ts). */
export interface MfaMailDependencies {
  users: Pick<AccountStore, 'getUserById'>;
  mail: Pick<AccountMail, 'mfaChanged'>;
  audit: Audit;
}

/**
 * The /mfa routes (enrol, confirm, new recovery codes, removal): the caller's live session (the
 * public keys suffice), its account's factors, the key that seals TOTP secrets, the mail.
 */
export type MfaDependencies = SessionCheckDependencies &
  SecondFactorDependencies &
  MfaMailDependencies & {
    mfa: Pick<MfaStore, 'read' | 'putPending' | 'activate' | 'useTotpStep' | 'useRecoveryCode' | 'reserveFactorAttempt' | 'replaceRecoveryCodes' | 'removeTotp'>;
    /** Attempts at DELETE /mfa/totp, counted per account (MFA_LIMITS.removalAttempts). */
    counters: Pick<RateLimitStore, 'hit'>;
    mfaConfig: Pick<MfaConfig, 'issuer'>;
    now?: () => Date;
  };

/** The /mfa routes' service. */
export interface MfaServices {
  mfa(): Promise<MfaDependencies>;
}
