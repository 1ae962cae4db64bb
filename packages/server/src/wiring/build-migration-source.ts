import { ConfigError } from '../config/config-error.js';
import { createHttpMigrationSource } from '../features/migration/http-migration-source.js';
import type { MigrationSource } from '../features/migration/migration-source.js';
import type { MigrationConfig } from '../features/migration/settings.js';
import type { Platform } from './platform.js';

/**
 * The old system login and registration ask (packages/server/src/features/migration/README.md), or undefined when lazy
 * migration is off. The HTTPS form runs on every host (fetch and Web Crypto); the Lambda form
 * comes from the platform, which loads the SDK client only now, so hosts without it (the
 * Worker) refuse it at start instead of failing every such login.
 */
export async function buildMigrationSource(
  config: MigrationConfig | undefined,
  platform: Pick<Platform, 'migrationFunction'>,
): Promise<MigrationSource | undefined> {
  if (config === undefined) return undefined;
  if (config.kind === 'url') return createHttpMigrationSource(config);
  if (platform.migrationFunction === undefined) {
    throw new ConfigError('PASSLANE_MIGRATION_FUNCTION', 'is not supported on this host (no AWS SDK here); use PASSLANE_MIGRATION_URL');
  }
  return platform.migrationFunction(config);
}
