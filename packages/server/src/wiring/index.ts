// `passlane/wiring`: services from configuration, for any host (Platform) and for Node.
export {
  buildAccountTools,
  buildAuthDependencies,
  buildHasher,
  buildPasswordPolicy,
  buildPublicTokenService,
  buildRegisterDependencies,
  buildRehashDependencies,
  buildTokenService,
  servicesOf,
  type AppDependencies,
} from './build-dependencies.js';
export { nodeBulkPlatform, nodePlatform, nodePlatformWithoutBlocklist } from '../runtimes/node/node-platform.js';
export type { Platform } from './platform.js';
