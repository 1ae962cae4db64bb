import type { Audit } from '../../accounts/audit-events.js';
import type { EmailFingerprint } from '../../accounts/fingerprint.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { EmailSwitchStore } from '../../storage/email-switch-store.js';
import type { EmailUndoStore } from '../../storage/email-undo-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { IdentityStore } from '../../storage/identity-store.js';
import type { OneTimeTokenStore } from '../../storage/one-time-token-store.js';
import type { RateLimitStore } from '../../storage/rate-limit-store.js';
import type { RecoveryConfig } from '../recovery/settings.js';
import type { EndOtherSessionsDependencies, SessionCheckDependencies } from '../sessions/dependencies.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

/** An account moved from one address to another, and what follows (switch-address.ts). */
export interface AddressSwitchDependencies extends EndOtherSessionsDependencies, AccountEventDependencies {
  emailSwitches: Pick<EmailSwitchStore, 'switchEmail'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'discardAll'>;
  /** The account's identities at providers (features/federation) follow it to the new address. */
  identities: Pick<IdentityStore, 'list' | 'repoint' | 'record' | 'forget'>;
  fingerprint: EmailFingerprint;
  audit: Audit;
  now: () => Date;
}

/** POST /email/change (request-email-change.ts). */
export interface EmailChangeRequestDependencies extends SessionCheckDependencies {
  /** A switch of the caller's account that stopped midway (servers without transactions) settled first. */
  emailSwitches: Pick<EmailSwitchStore, 'settlePending'>;
  users: Pick<AccountStore, 'getUserById' | 'getUserByEmail'>;
  mfa: Pick<MfaStore, 'read'>;
  /** The new mailbox's and the account's mail budgets. */
  counters: Pick<RateLimitStore, 'hit'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'put'>;
  mail: Pick<AccountMail, 'emailChange' | 'emailChangeAttempt'>;
  /** Its mail budget per mailbox per hour, and the wrong-token limit of the link. */
  recovery: RecoveryConfig;
  fingerprint: EmailFingerprint;
  audit: Audit;
  now: () => Date;
}

/** POST /email/change/confirm (confirm-email-change.ts). */
export type EmailChangeConfirmDependencies = AddressSwitchDependencies & {
  users: Pick<AccountStore, 'getUserByEmail'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'read' | 'reserveGuess' | 'giveBackGuess' | 'consume' | 'discardAll'>;
  emailUndos: Pick<EmailUndoStore, 'put'>;
  mail: Pick<AccountMail, 'emailChanged'>;
  recovery: RecoveryConfig;
};

/** POST /email/change/undo (undo-email-change.ts). */
export type EmailChangeUndoDependencies = AddressSwitchDependencies & {
  users: Pick<AccountStore, 'getUserById' | 'getUserByEmail' | 'replacePasswordHash'>;
  emailUndos: Pick<EmailUndoStore, 'read' | 'consume'>;
  emailSwitches: Pick<EmailSwitchStore, 'switchEmail' | 'disable'>;
  oneTimeTokens: Pick<OneTimeTokenStore, 'put' | 'discardAll'>;
  mail: Pick<AccountMail, 'passwordReset'>;
  recovery: RecoveryConfig;
};

/** The routes of an address change, served together. */
export type EmailChangeDependencies = EmailChangeRequestDependencies & EmailChangeConfirmDependencies & EmailChangeUndoDependencies;

/** The address change routes' service. */
export interface EmailChangeServices {
  emailChange(): Promise<EmailChangeDependencies>;
}
