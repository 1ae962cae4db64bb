// `@passlane/server/wiring`: services from configuration, for any host (Platform); the Node
// platform is the Node runtime's (`@passlane/server/runtimes/node`).
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
export type { Platform } from './platform.js';
