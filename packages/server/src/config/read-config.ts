import type { FingerprintConfig, HasherConfig } from '../accounts/settings.js';
import type { RateLimits } from '../features/login/settings.js';
import type { MigrationConfig } from '../features/migration/settings.js';
import type { PasswordConfig } from '../features/password/settings.js';
import type { RecoveryConfig } from '../features/recovery/settings.js';
import type { DeviceApprovalConfig } from '../features/device-approval/settings.js';
import type { RehashConfig } from '../features/rehash/settings.js';
import type { AuthorizerConfig, SessionConfig } from '../features/sessions/settings.js';
import type { TokenConfig } from '../features/tokens/settings.js';
import type { MailConfig } from '../mail/settings.js';
import type { MfaConfig } from '../features/mfa/settings.js';
import { readMfaConfig } from './mfa-config.js';
import type { WebAuthnConfig } from '../features/passkeys/settings.js';
import { readWebAuthnConfig } from './webauthn-config.js';
import { readFederationConfig } from './federation-config.js';
import type { FederationConfig } from '../features/federation/settings.js';
import type { StorageConfig } from '../storage/settings.js';
import { readAuthorizerConfig } from './authorizer-config.js';
import type { Env } from './env.js';
import { readFingerprintConfig } from './fingerprint-config.js';
import { readHasherConfig } from './hasher-config.js';
import { readMailConfig } from './mail-config.js';
import { readMigrationConfig } from './migration-config.js';
import { readPasswordConfig } from './password-config.js';
import { readRateLimits } from './rate-limit-config.js';
import { readRecoveryConfig } from './recovery-config.js';
import { readDeviceApprovalConfig } from './device-approval-config.js';
import { readRehashConfig } from './rehash-config.js';
import { readSessionConfig } from './session-config.js';
import { readStorageConfig } from './storage-config.js';
import { readTokenConfig } from './token-config.js';
import { readAdminConfig } from './admin-config.js';
import type { OperatorConfig } from '../features/operators/settings.js';
import type { AccountEventSettings } from '../events/account-events.js';
import { readEventsConfig } from './events-config.js';
import type { HooksConfig } from '../hooks/settings.js';
import { readHooksConfig } from './hooks-config.js';

/**
 * Everything the service is built from (wiring/build-dependencies.ts), each part typed where the
 * part it configures lives (README.md here has the table). readConfig fills it from the
 * environment; code may build one itself.
 */
export interface PasslaneConfig {
  storage: StorageConfig;
  hasher: HasherConfig;
  tokens: TokenConfig;
  rateLimits: RateLimits;
  rehash: RehashConfig;
  fingerprint: FingerprintConfig;
  sessions: SessionConfig;
  recovery: RecoveryConfig;
  deviceApproval: DeviceApprovalConfig;
  authorizer: AuthorizerConfig;
  mail: MailConfig;
  passwords: PasswordConfig;
  mfa: MfaConfig;
  /** Passkeys' relying party; absent when off (features/passkeys/settings.ts). */
  webauthn?: WebAuthnConfig;
  /** Lazy migration at login; absent when off (features/migration/settings.ts). */
  migration?: MigrationConfig;
  /** The operator API's admin keys (PASSLANE_ADMIN_KEYS); absent when off: the operator API is not served (features/operators). */
  operators?: OperatorConfig;
  /** Sign-in with providers; absent when none is configured (features/federation/settings.ts). */
  federation?: FederationConfig;
  /** Account events recorded with each change (src/events); off unless PASSLANE_EVENTS=on. */
  events: AccountEventSettings;
  /** The token and sign-up hooks; each absent when off (src/hooks/settings.ts). */
  hooks?: HooksConfig;
}

/**
 * Reads and checks every setting at once, so a bad value fails the cold start with a ConfigError
 * naming the variable, not the first request that happens to use it. Pure: no I/O, no keys
 * imported (that is features/tokens' job), safe to call in any runtime with any string map.
 */
export function readConfig(env: Env): PasslaneConfig {
  const migration = readMigrationConfig(env);
  const webauthn = readWebAuthnConfig(env);
  const operators = readAdminConfig(env);
  const tokens = readTokenConfig(env);
  const federation = readFederationConfig(env, tokens);
  return {
    storage: readStorageConfig(env),
    hooks: readHooksConfig(env),
    hasher: readHasherConfig(env),
    tokens,
    rateLimits: readRateLimits(env),
    rehash: readRehashConfig(env),
    fingerprint: readFingerprintConfig(env),
    sessions: readSessionConfig(env),
    recovery: readRecoveryConfig(env),
    deviceApproval: readDeviceApprovalConfig(env),
    authorizer: readAuthorizerConfig(env),
    mail: readMailConfig(env),
    passwords: readPasswordConfig(env),
    mfa: readMfaConfig(env),
    events: readEventsConfig(env),
    ...(webauthn && { webauthn }),
    ...(migration && { migration }),
    ...(operators && { operators }),
    ...(federation && { federation }),
  };
}
