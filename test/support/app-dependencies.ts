/**
 * The API's dependencies as a long-lived Node host builds them (src/wiring), from an env and a
 * data directory for the local signing key, with parts a test wants to replace (a counting
 * hasher, a fixed clock). Async so that a configuration error rejects, as it does in a host.
 */
import { readConfig } from '../../packages/server/src/config/read-config.js';
import { buildAuthDependencies, type AppDependencies } from '../../packages/server/src/wiring/build-dependencies.js';
import { nodePlatform } from '../../packages/server/src/runtimes/node/node-platform.js';

export type { AppDependencies };

export async function createAuthDependencies(
  env: Record<string, string | undefined>,
  options: Partial<AppDependencies> & { dataDir?: string } = {},
): Promise<AppDependencies> {
  const { dataDir, ...overrides } = options;
  return buildAuthDependencies(readConfig({ ...env, ...(dataDir !== undefined && { PASSLANE_DATA_DIR: dataDir }) }), nodePlatform, overrides);
}
