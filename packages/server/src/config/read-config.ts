import type { RateLimits } from '../accounts/dependencies.js';
import { readAuthorizerConfig, type AuthorizerConfig } from './authorizer-config.js';
import type { Env } from './env.js';
import { readFingerprintConfig, type FingerprintConfig } from './fingerprint-config.js';
import { readHasherConfig, type HasherConfig } from './hasher-config.js';
import { readMailConfig, type MailConfig } from './mail-config.js';
import { readMigrationConfig, type MigrationConfig } from './migration-config.js';
import { readPasswordConfig, type PasswordConfig } from './password-config.js';
import { readRateLimits } from './rate-limit-config.js';
import { readRecoveryConfig, type RecoveryConfig } from './recovery-config.js';
import { readRehashConfig, type RehashConfig } from './rehash-config.js';
import { readSessionConfig, type SessionConfig } from './session-config.js';
import { readStorageConfig, type StorageConfig } from './storage-config.js';
import { readTokenConfig, type TokenConfig } from './token-config.js';

/** Everything the service reads from its environment, typed and checked (see README.md here). */
export interface PasslaneConfig {
  storage: StorageConfig;
  hasher: HasherConfig;
  tokens: TokenConfig;
  rateLimits: RateLimits;
  rehash: RehashConfig;
  fingerprint: FingerprintConfig;
  sessions: SessionConfig;
  recovery: RecoveryConfig;
  authorizer: AuthorizerConfig;
  mail: MailConfig;
  passwords: PasswordConfig;
  /** Lazy migration at login; absent when off (migration-config.ts). */
  migration?: MigrationConfig;
}

/**
 * Reads and checks every setting at once, so a bad value fails the cold start with a ConfigError
 * naming the variable, not the first request that happens to use it. Pure: no I/O, no keys
 * imported (that is src/tokens' job), safe to call in any runtime with any string map.
 */
export function readConfig(env: Env): PasslaneConfig {
  const migration = readMigrationConfig(env);
  return {
    storage: readStorageConfig(env),
    hasher: readHasherConfig(env),
    tokens: readTokenConfig(env),
    rateLimits: readRateLimits(env),
    rehash: readRehashConfig(env),
    fingerprint: readFingerprintConfig(env),
    sessions: readSessionConfig(env),
    recovery: readRecoveryConfig(env),
    authorizer: readAuthorizerConfig(env),
    mail: readMailConfig(env),
    passwords: readPasswordConfig(env),
    ...(migration && { migration }),
  };
}
