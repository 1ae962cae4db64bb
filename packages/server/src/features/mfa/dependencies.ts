import type { Audit } from '../../accounts/audit-events.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { FactorUndoStore } from '../../storage/factor-undo-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import type { PasskeyStore } from '../../storage/passkey-store.js';
import type { RateLimitStore } from '../../storage/rate-limit-store.js';
import type { RecoveryConfig } from '../recovery/settings.js';
import type { EndOtherSessionsDependencies, SessionCheckDependencies } from '../sessions/dependencies.js';
import type { SecretBox } from './secret-box.js';
import type { MfaConfig } from './settings.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

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

/** A factor added (mail-factor-added.ts): its "this wasn't me" link stored, the owner mailed. */
export interface FactorAddedMailDependencies {
  users: Pick<AccountStore, 'getUserById'>;
  factorUndos: Pick<FactorUndoStore, 'put'>;
  mail: Pick<AccountMail, 'factorAdded'>;
  audit: Audit;
}

/** A factor turned on: its mail and undo link, and the end of the password-only sessions (end-password-only-sessions.ts). */
export type FactorEnabledDependencies = FactorAddedMailDependencies & EndOtherSessionsDependencies;

/**
 * The /mfa routes (enrol, confirm, new recovery codes, removal): the caller's live session (the
 * public keys suffice), its account's factors, the key that seals TOTP secrets, the mail.
 */
export type MfaDependencies = SessionCheckDependencies &
  AccountEventDependencies &
  SecondFactorDependencies &
  MfaMailDependencies &
  FactorEnabledDependencies & {
    mfa: Pick<MfaStore, 'read' | 'putPending' | 'putFirstPending' | 'activate' | 'useTotpStep' | 'useRecoveryCode' | 'reserveFactorAttempt' | 'replaceRecoveryCodes' | 'removeTotp'>;
    mail: Pick<AccountMail, 'mfaChanged' | 'factorAdded'>;
    /** Attempts at DELETE /mfa/totp, counted per account (MFA_LIMITS.removalAttempts). */
    counters: Pick<RateLimitStore, 'hit'>;
    mfaConfig: Pick<MfaConfig, 'issuer'>;
    now: () => Date;
  };

/**
 * POST /mfa/undo (undo-factor.ts): no session, the link is the proof. The link's item, the
 * factors (removed by store writes alone: no TOTP key, no WebAuthn check), the account (its
 * password made unusable), its sessions and devices (all ended), its reset link and mail.
 */
export interface FactorUndoDependencies extends EndOtherSessionsDependencies, AccountEventDependencies {
  factorUndos: Pick<FactorUndoStore, 'read' | 'consume'>;
  mfa: Pick<MfaStore, 'read' | 'removeTotp'>;
  passkeys: Pick<PasskeyStore, 'remove' | 'deleteLookup'>;
  users: Pick<AccountStore, 'getUserByEmail' | 'replacePasswordHash'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'put'>;
  mail: Pick<AccountMail, 'passwordReset'>;
  /** How long the reset link mailed works. */
  recovery: Pick<RecoveryConfig, 'resetTokenSeconds'>;
  now: () => Date;
}

/** The /mfa routes' service. */
export interface MfaServices {
  mfa(): Promise<MfaDependencies>;
}

/** POST /mfa/undo's service: apart, so its function holds no TOTP key and verifies no token. */
export interface FactorUndoServices {
  factorUndo(): Promise<FactorUndoDependencies>;
}
