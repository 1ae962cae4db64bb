// `@passlane/server/wiring`: services from configuration, for any host (Platform); the Node
// platform is the Node runtime's (`@passlane/server/runtimes/node`).
export {
  buildAccountLifecycleDependencies,
  buildAccountTools,
  buildAuthDependencies,
  buildAuthorizerDependencies,
  buildEmailChangeDependencies,
  buildHasher,
  buildLoginDependencies,
  buildPasswordChangeDependencies,
  buildPasswordPolicy,
  buildPublicTokenService,
  buildRecoveryDependencies,
  buildRefreshDependencies,
  buildRegisterDependencies,
  buildRehashDependencies,
  buildSessionManagementDependencies,
  buildTokenService,
  type AppDependencies,
} from './build-dependencies.js';
export { API_ROUTES } from './api-routes.js';
export { lambdaOperatorDependencies, servedApi, type ServedServices } from './operator-api.js';
export { servicesOf, type ApiServices } from './api-services.js';
export type { Platform } from './platform.js';
