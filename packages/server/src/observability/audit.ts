import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AuditEvent, AuditEventType } from '../accounts/audit-events.js';
import { logger } from './logger.js';
import { metrics } from './metrics.js';

/**
 * One CloudWatch metric per audit event type. Spelled out (not derived) so a renamed event type
 * fails to compile instead of silently starting a new metric and orphaning dashboards and alarms.
 */
export const AUDIT_METRIC_NAMES: Readonly<Record<AuditEventType, string>> = {
  'auth.registered': 'Registered',
  'auth.login_succeeded': 'LoginSucceeded',
  'auth.login_failed': 'LoginFailed',
  'auth.password_rehashed': 'PasswordRehashed',
  'auth.password_rehash_skipped': 'PasswordRehashSkipped',
  'auth.password_changed': 'PasswordChanged',
  'auth.password_change_failed': 'PasswordChangeFailed',
  'auth.rate_limited': 'RateLimited',
  'auth.stored_hash_rejected': 'StoredHashRejected',
  'auth.session_refreshed': 'SessionRefreshed',
  'auth.refresh_failed': 'RefreshFailed',
  'auth.refresh_token_reused': 'RefreshTokenReused',
  'auth.sessions_ended': 'SessionsEnded',
  'auth.devices_forgotten': 'DevicesForgotten',
  'auth.password_reset_requested': 'PasswordResetRequested',
  'auth.password_reset': 'PasswordReset',
  'auth.one_time_token_rejected': 'OneTimeTokenRejected',
  'auth.verification_sent': 'VerificationSent',
  'auth.email_verified': 'EmailVerified',
  'auth.registration_attempt_existing': 'RegistrationAttemptExisting',
  'auth.login_unverified': 'LoginUnverified',
  'auth.login_disabled': 'LoginDisabled',
  'auth.mail_failed': 'MailFailed',
  'auth.device_approval_requested': 'DeviceApprovalRequested',
  'auth.device_approved': 'DeviceApproved',
  'auth.password_rejected': 'PasswordRejected',
  'auth.breach_check_unavailable': 'BreachCheckUnavailable',
  'auth.login_weak_password': 'LoginWeakPassword',
  'auth.account_migrated': 'AccountMigrated',
  'auth.token_hook_failed': 'TokenHookFailed',
  'auth.signup_refused': 'SignupRefused',
  'auth.signup_hook_failed': 'SignupHookFailed',
  'auth.migration_unavailable': 'MigrationUnavailable',
  'auth.mfa_enrolment_started': 'MfaEnrolmentStarted',
  'auth.mfa_enabled': 'MfaEnabled',
  'auth.mfa_removed': 'MfaRemoved',
  'auth.recovery_codes_regenerated': 'RecoveryCodesRegenerated',
  'auth.mfa_challenged': 'MfaChallenged',
  'auth.mfa_succeeded': 'MfaSucceeded',
  'auth.mfa_failed': 'MfaFailed',
  'auth.recovery_code_used': 'RecoveryCodeUsed',
  'auth.passkey_registered': 'PasskeyRegistered',
  'auth.passkey_registration_failed': 'PasskeyRegistrationFailed',
  'auth.passkey_renamed': 'PasskeyRenamed',
  'auth.passkey_removed': 'PasskeyRemoved',
  'auth.factor_undone': 'FactorUndone',
  'auth.account_deleted': 'AccountDeleted',
  'auth.account_disabled': 'AccountDisabled',
  'auth.account_enabled': 'AccountEnabled',
  'auth.factor_removed_by_operator': 'FactorRemovedByOperator',
  'auth.password_reset_sent_by_operator': 'PasswordResetSentByOperator',
  'auth.account_viewed': 'AccountViewed',
  'auth.email_change_requested': 'EmailChangeRequested',
  'auth.email_changed': 'EmailChanged',
  'auth.email_change_failed': 'EmailChangeFailed',
  'auth.email_change_undone': 'EmailChangeUndone',
  'auth.passkey_login_succeeded': 'PasskeyLoginSucceeded',
  'auth.passkey_login_failed': 'PasskeyLoginFailed',
  'auth.federated_login_succeeded': 'FederatedLoginSucceeded',
  'auth.federated_login_failed': 'FederatedLoginFailed',
  'auth.federated_account_created': 'FederatedAccountCreated',
  'auth.identity_linked': 'IdentityLinked',
  'auth.identity_removed': 'IdentityRemoved',
};

/**
 * The audit sink of the Node and Lambda hosts: one structured INFO line per event on this
 * container's Powertools logger (message = the event type, the event's fields beside it) plus a
 * count. Events carry userIds and email fingerprints only, never emails, passwords, hashes or
 * tokens, so they are logged as they are.
 */
export function auditToPowertools(event: AuditEvent): void {
  const { type, ...fields } = event;
  logger.info(type, { audit: true, ...fields });
  metrics.addMetric(AUDIT_METRIC_NAMES[type], MetricUnit.Count, 1);
}
