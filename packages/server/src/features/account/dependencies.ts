import type { Actor, Audit } from '../../accounts/audit-events.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import type { IdentityStore } from '../../storage/identity-store.js';
import type { PasskeyStore } from '../../storage/passkey-store.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { RecoveryConfig } from '../recovery/settings.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

export type { Actor };

/**
 * The owner's and the operators' actions on a whole account (deletion, disabling, ending every
 * session, removing a factor, a reset mail) and the operators' reads: the account, its sessions
 * item, its factors and passkey lookups, its one-time tokens, the fingerprint that keys them, the
 * mail. No hasher, no signing key: nothing here checks a password or issues a token.
 */
export interface AccountLifecycleDependencies extends AccountEventDependencies {
  users: Pick<AccountStore, 'getUserById' | 'getUserByEmail' | 'deleteUser' | 'setDisabled' | 'listUsers'>;
  sessions: Pick<SessionStore, 'read' | 'purge'>;
  mfa: Pick<MfaStore, 'read' | 'removeTotp' | 'removeRecoveryCodes' | 'deleteFactors'>;
  passkeys: Pick<PasskeyStore, 'remove' | 'deleteLookup'>;
  /** The account's identities at providers (features/federation): erased with it. */
  identities: Pick<IdentityStore, 'list' | 'release' | 'forget'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'put' | 'discardAll'>;
  fingerprint: EmailFingerprint;
  recovery: Pick<RecoveryConfig, 'resetTokenSeconds'>;
  mail: Pick<AccountMail, 'accountChanged' | 'mfaChanged' | 'passwordReset'>;
  audit: Audit;
  now: () => Date;
}

/** DELETE /account: the caller's live, recent session (the public keys verify it), and the lifecycle's parts. */
export type OwnAccountDependencies = AccountLifecycleDependencies & SessionCheckDependencies;

/** The owner's account routes' service. */
export interface AccountServices {
  account(): Promise<OwnAccountDependencies>;
}
