// `passlane/config`: every environment variable, read and checked (README.md here).
export { ConfigError } from './config-error.js';
export type { Env } from './env.js';
export { readConfig, type PasslaneConfig } from './read-config.js';
export { readServerConfig, type ServerConfig } from './server-config.js';
export { readStorageConfig, DEFAULT_TABLE_NAME, type DynamoDbConnection, type StorageConfig } from './storage-config.js';
export { readHasherConfig, type HasherConfig } from './hasher-config.js';
export { readTokenConfig, type SigningKeyConfig, type TokenConfig } from './token-config.js';
export { readRateLimits, DEFAULT_RATE_LIMITS } from './rate-limit-config.js';
export { readRehashConfig, type RehashConfig } from './rehash-config.js';
export { readPasswordConfig, type BreachCheckConfig, type PasswordConfig } from './password-config.js';
export { readMailConfig, readServiceName, type MailConfig, type MailTransport } from './mail-config.js';
export {
  readMigrationConfig,
  DEFAULT_MIGRATION_TIMEOUT_MS,
  type FunctionMigrationConfig,
  type MigrationConfig,
  type UrlMigrationConfig,
} from './migration-config.js';
export { loadSecrets, SecretLoadError, SecretsUnavailableError, type SecretSource } from '../runtimes/lambda/load-secrets.js';
