import type { HookFailureReason } from '../hooks/errors.js';
import type { SignupMethod } from '../hooks/signup-hook.js';

/**
 * Security events, written as structured logs (and counted as metrics) by the host. They carry
 * userIds and short email fingerprints, never emails, passwords, hashes or tokens.
 */
export type AuditEvent =
  | { type: 'auth.registered'; userId: string }
  | { type: 'auth.login_succeeded'; userId: string }
  | {
      type: 'auth.login_failed';
      reason: 'unknown_account' | 'wrong_password' | 'unverifiable_record' | 'password_reset_required' | 'migration_rejected' | 'migration_unavailable';
      userId?: string;
      emailFingerprint: string;
      /** It presented a known device: counted against that device alone. */
      knownDevice?: boolean;
    }
  | { type: 'auth.account_migrated'; userId: string; emailVerified: boolean }
  /** The token hook gave no usable answer (src/hooks): the token was refused, or minted without its claims. */
  | { type: 'auth.token_hook_failed'; userId: string; trigger: 'login' | 'refresh'; reason: HookFailureReason; status?: number; outcome: 'refused' | 'without_claims' }
  /** The sign-up hook refused an account (`code`: its own reason), or gave no usable answer (`reason`): none was created. */
  | { type: 'auth.signup_refused'; method: SignupMethod; code: string; emailFingerprint: string }
  | { type: 'auth.signup_hook_failed'; method: SignupMethod; reason: HookFailureReason; status?: number; emailFingerprint: string }
  | { type: 'auth.migration_unavailable'; reason: MigrationUnavailableReason; status?: number; emailFingerprint: string }
  | { type: 'auth.password_rehashed'; userId: string; from: string; to: string }
  | { type: 'auth.password_rehash_skipped'; userId: string; reason: 'hash_changed' | 'storage_unavailable' }
  | { type: 'auth.password_changed'; userId: string }
  | { type: 'auth.password_change_failed'; userId: string; reason: 'wrong_password' }
  | { type: 'auth.rate_limited'; scope: LimitScope | 'session' | 'refresh_source'; emailFingerprint?: string }
  | { type: 'auth.session_refreshed'; userId: string; sessionId: string; grace: boolean }
  | { type: 'auth.refresh_failed'; reason: 'malformed' | 'unknown_session' | 'expired' | 'mismatch' }
  | { type: 'auth.refresh_token_reused'; userId: string; sessionId: string }
  | { type: 'auth.sessions_ended'; userId: string; count: number; reason: SessionEndReason; actor?: Actor }
  | { type: 'auth.devices_forgotten'; userId: string; count: number; reason: DeviceForgetReason; actor?: Actor }
  /** The account and every item of it erased (features/account/delete-account.ts). */
  | { type: 'auth.account_deleted'; userId: string; emailFingerprint: string; actor: Actor }
  | { type: 'auth.account_disabled'; userId: string; actor: Actor }
  | { type: 'auth.account_enabled'; userId: string; actor: Actor }
  /** An operator took a factor away (the support path for a lost or an attacker's factor); `removed` false: it was not there. */
  | { type: 'auth.factor_removed_by_operator'; userId: string; factor: 'totp' | 'recovery_codes' | 'passkey' | 'all'; removed: boolean; actor: Actor }
  | { type: 'auth.password_reset_sent_by_operator'; userId: string; outcome: 'sent' | 'not_sent' | 'mail_failed'; actor: Actor }
  /** An operator looked an account up (`find`, `show`) or listed accounts (`list`, with how many). */
  | { type: 'auth.account_viewed'; action: 'find' | 'show' | 'list'; userId?: string; emailFingerprint?: string; count?: number; actor: Actor }
  | { type: 'auth.password_reset_requested'; outcome: 'sent' | 'not_sent' | 'mail_failed' | 'unknown_account' | 'rate_limited'; emailFingerprint: string }
  | { type: 'auth.password_reset'; userId: string }
  | {
      type: 'auth.one_time_token_rejected';
      purpose: 'reset' | 'verify' | 'device_approval' | 'undo' | 'email-change' | 'email_undo';
      /** `wrong_client`: a device approval's link without the asking client's secret; `stale`: a password change since it was asked for. */
      reason: 'malformed' | 'unknown' | 'expired' | 'mismatch' | 'used' | 'wrong_client' | 'stale';
    }
  | { type: 'auth.verification_sent'; userId?: string; emailFingerprint: string }
  | { type: 'auth.email_verified'; userId: string }
  | { type: 'auth.registration_attempt_existing'; emailFingerprint: string }
  | { type: 'auth.login_unverified'; userId: string }
    /** A right secret on a disabled account (a wrong one fails as on any account). */
    | { type: 'auth.login_disabled'; userId: string }
  | { type: 'auth.mail_failed'; mail: 'password_reset' | 'email_verification' | 'registration_attempt' | 'mfa_changed' | 'device_approval' | 'factor_added' | 'account_changed' | 'email_change' | 'email_change_attempt' | 'email_changed'; code: string }
  | { type: 'auth.device_approval_requested'; outcome: 'sent' | 'not_sent' | 'mail_failed' | 'unknown_account' | 'rate_limited'; emailFingerprint: string }
  | { type: 'auth.device_approved'; userId: string }
  | { type: 'auth.mfa_enrolment_started'; userId: string; method: 'totp' }
  | { type: 'auth.mfa_enabled'; userId: string; method: 'totp' }
  | { type: 'auth.mfa_removed'; userId: string; method: 'totp'; with: 'totp' | 'recovery_code' | 'webauthn' }
  | { type: 'auth.recovery_codes_regenerated'; userId: string }
  | { type: 'auth.mfa_challenged'; userId: string }
  | { type: 'auth.mfa_succeeded'; userId: string; method: 'totp' | 'recovery_code' | 'webauthn' }
  | { type: 'auth.mfa_failed'; reason: MfaFailureReason; userId?: string; method?: 'totp' | 'recovery_code' | 'webauthn' }
  | { type: 'auth.passkey_registered'; userId: string; synced: boolean }
  | { type: 'auth.passkey_registration_failed'; reason: PasskeyFailureReason; userId: string }
  | { type: 'auth.passkey_renamed'; userId: string }
  | { type: 'auth.passkey_removed'; userId: string }
  /** A "this wasn't me" link used: the factor it was mailed about (gone already: `removed` false), every session, the password. */
  | { type: 'auth.factor_undone'; userId: string; factor: 'totp' | 'passkey'; removed: boolean }
  /** An address change asked for (features/email-change): fingerprints only, the new address's. `taken`: it has an account (its owner is told). */
  | { type: 'auth.email_change_requested'; userId: string; outcome: 'sent' | 'not_sent' | 'mail_failed' | 'taken' | 'rate_limited'; emailFingerprint: string }
  /** An address change's link used: the account moved from one fingerprint to the other. */
  | { type: 'auth.email_changed'; userId: string; fromFingerprint: string; toFingerprint: string }
  /** A used link that did not move the account: the address was taken meanwhile, or the account changed or went. */
  | { type: 'auth.email_change_failed'; userId: string; reason: 'taken' | 'changed' | 'gone' }
  /** An address change's "this wasn't me" link used: the old address back (or taken meanwhile: the account disabled), sessions ended, the password locked. */
  | { type: 'auth.email_change_undone'; userId: string; restored: boolean }
  | { type: 'auth.passkey_login_succeeded'; userId: string }
  | { type: 'auth.passkey_login_failed'; reason: PasskeyFailureReason; userId?: string }
  | { type: 'auth.federated_login_succeeded'; userId: string; provider: string }
  | { type: 'auth.federated_login_failed'; reason: FederationFailureReason; provider?: string; userId?: string }
  | { type: 'auth.federated_account_created'; userId: string; provider: string }
  | { type: 'auth.identity_linked'; userId: string; provider: string }
  | { type: 'auth.identity_removed'; userId: string; provider: string }
  | { type: 'auth.recovery_code_used'; userId: string }
  | { type: 'auth.stored_hash_rejected'; userId: string; code: string }
  | { type: 'auth.password_rejected'; action: PasswordSetAction; reason: PasswordRejectionReason; userId?: string }
  | { type: 'auth.breach_check_unavailable'; action: PasswordSetAction; failClosed: boolean }
  | { type: 'auth.login_weak_password'; userId: string; reason: CheapRejectionReason };

/** Why a second factor was refused: a code wrong, replayed or used; an MFA token unknown, expired or voided. */
export type MfaFailureReason = 'wrong_code' | 'unknown_token' | 'expired_token' | 'stale_token' | 'not_enrolled' | 'recent_login_required' | 'mfa_login_required';

/**
 * Why a passkey was refused (registration or login): its challenge unknown, used or expired; its
 * credential unknown (or a stale lookup) or registered already; its answer not verifying
 * (signature, origin, RP ID, user verification); its counter gone back or its backup
 * eligibility changed; another use of the same assertion got there first.
 */
export type PasskeyFailureReason =
  | 'unknown_challenge'
  | 'expired_challenge'
  | 'unknown_credential'
  | 'credential_taken'
  | 'not_verified'
  | 'counter_regression'
  | 'backup_eligibility_changed'
  | 'replayed';

/** Which login limit refused an attempt (login-guard.ts). */
export type LimitScope = 'account' | 'account_source' | 'source' | 'device' | 'account_success' | 'source_success';

/** Where a new password was being set. */
export type PasswordSetAction = 'register' | 'password_change' | 'password_reset';

/** Why a new password was refused (features/password/rules/policy.ts): PasswordRejectedError and the audit event carry it. */
export const PASSWORD_REJECTION_REASONS = ['too_short', 'too_long', 'common', 'breached', 'context'] as const;
export type PasswordRejectionReason = (typeof PASSWORD_REJECTION_REASONS)[number];

/** What login can tell about an existing password without the blocklist or the network (packages/server/src/features/password/rules/README.md). */
export type CheapRejectionReason = Extract<PasswordRejectionReason, 'too_short' | 'too_long' | 'context'>;

/** Why sessions ended: a sign-out (of this, the others or all), one ended from the list, a password change, too many, a factor turned on (the password-only ones), a factor undone. */
export type SessionEndReason =
  | 'logout'
  | 'logout_others'
  | 'logout_global'
  | 'deleted'
  | 'password_changed'
  | 'evicted'
  | 'reused'
  | 'factor_enabled'
  | 'factor_undone'
  | 'email_changed'
  | 'email_change_undone'
  | AccountEndReason;

/** Every session and device of an account ended at once (features/account): the account disabled or deleted, or all ended on request. */
export type AccountEndReason = 'account_disabled' | 'account_deleted' | 'all_ended';

/** Who acted on an account: its owner (a live session), or an operator (an IAM principal's ARN, an admin key's id: never a secret). */
export type Actor = { kind: 'owner' } | { kind: 'operator'; id: string };

/** Why known devices were forgotten: one removed from the list, a sign-out of the others or of all, a new password (change or reset). */
export type DeviceForgetReason = 'deleted' | 'logout_others' | 'logout_global' | 'password_changed' | 'factor_undone' | 'email_changed' | 'email_change_undone' | AccountEndReason;

/**
 * Why lazy migration's old system gave no answer (features/migration/migration-source.ts):
 * audited (`auth.migration_unavailable`), never shown to the client.
 */
export type MigrationUnavailableReason =
  /** No complete answer within the timeout. */
  | 'timeout'
  /** Connection refused or reset, DNS, TLS, credentials, throttling: the request did not get an answer. */
  | 'network'
  /** An HTTP status other than 200 (a refused signature is a 401 here), or a Lambda status other than 200. */
  | 'status'
  /** The Lambda function threw (X-Amz-Function-Error). */
  | 'function_error'
  /** 200, but not the contract's JSON (or too large). */
  | 'malformed_answer';

/**
 * Why a sign-in with a provider was refused (features/federation): audited, never shown beyond
 * the answer's code. The provider's part (its error, the code exchange, the ID token's claims or
 * signature, its user API, unreachable), then ours: the `state` (unknown or used, expired, another
 * browser's), the app code (unknown or used, expired, a wrong PKCE verifier), the email.
 */
export type FederationFailureReason =
  | 'provider_error'
  | 'invalid_response'
  | 'token_exchange'
  | 'id_token'
  | 'id_token_signature'
  | 'user_api'
  | 'provider_unavailable'
  | 'redirect_not_allowed'
  | 'unknown_state'
  | 'expired_state'
  | 'other_browser'
  | 'unknown_code'
  | 'expired_code'
  | 'wrong_verifier'
  | 'email_unverified'
  | 'link_required'
  | 'account_gone';

export type AuditEventType = AuditEvent['type'];

/** Where the use cases send their audit events: the host's sink (logs and metrics). */
export type Audit = (event: AuditEvent) => void;
