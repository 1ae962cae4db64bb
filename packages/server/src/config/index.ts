// `@passlane/server/config`: the environment's readers (README.md here), and the settings types
// they fill, each kept where what it configures lives.
export { ConfigError } from './config-error.js';
export type { Env } from './env.js';
export { readConfig, type PasslaneConfig } from './read-config.js';
export { readServerConfig, type ServerConfig } from './server-config.js';
export { readCorsConfig } from './cors-config.js';
export { DEFAULT_CORS_CONFIG, type CorsConfig } from '../api/settings.js';
export { readStorageConfig } from './storage-config.js';
export { DEFAULT_TABLE_NAME, type DynamoDbConnection, type StorageConfig } from '../storage/settings.js';
export { readHasherConfig } from './hasher-config.js';
export type { FingerprintConfig, HasherConfig } from '../accounts/settings.js';
export { readTokenConfig } from './token-config.js';
export type { SigningKeyConfig, TokenConfig } from '../features/tokens/settings.js';
export { readRateLimits } from './rate-limit-config.js';
export { DEFAULT_RATE_LIMITS, type LoginLimits, type RateLimits } from '../features/login/settings.js';
export { readSessionConfig } from './session-config.js';
export { readAuthorizerConfig } from './authorizer-config.js';
export { DEFAULT_SESSION_CONFIG, type AuthorizerConfig, type SessionConfig } from '../features/sessions/settings.js';
export { readRecoveryConfig } from './recovery-config.js';
export { DEFAULT_RECOVERY_CONFIG, type RecoveryConfig } from '../features/recovery/settings.js';
export { readDeviceApprovalConfig } from './device-approval-config.js';
export { DEFAULT_DEVICE_APPROVAL_CONFIG, type DeviceApprovalConfig } from '../features/device-approval/settings.js';
export { readRehashConfig } from './rehash-config.js';
export type { RehashConfig } from '../features/rehash/settings.js';
export { readPasswordConfig } from './password-config.js';
export type { BreachCheckConfig, PasswordConfig } from '../features/password/settings.js';
export { readMailConfig, readServiceName } from './mail-config.js';
export type { MailConfig, MailTransport } from '../mail/settings.js';
export { readWebAuthnConfig } from './webauthn-config.js';
export { DEFAULT_PASSKEY_NAME, PASSKEY_LIMITS, type WebAuthnConfig } from '../features/passkeys/settings.js';
export { readMigrationConfig } from './migration-config.js';
export {
  DEFAULT_MIGRATION_TIMEOUT_MS,
  type FunctionMigrationConfig,
  type MigrationConfig,
  type UrlMigrationConfig,
} from '../features/migration/settings.js';
export { readEventDeliveryConfig } from './event-delivery-config.js';
export { readCronSecret } from './cron-secret-config.js';
export { DEFAULT_EVENT_DELIVERY, type EventDeliverySettings, type WebhookSettings } from '../features/events/settings.js';
export { readHooksConfig } from './hooks-config.js';
export { DEFAULT_HOOK_TIMEOUT_MS, type HookConfig, type HooksConfig, type HookTarget, type TokenHookConfig } from '../hooks/settings.js';
