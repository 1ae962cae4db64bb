import type { AnyRoute } from '../api/route.js';
import type { PasslaneConfig } from '../config/read-config.js';
import type { OperatorServices } from '../features/operators/dependencies.js';
import { adminKeyAuthentication, iamPrincipalAuthentication } from '../features/operators/operator-authentication.js';
import { OPERATOR_ROUTES } from '../features/operators/operator-routes.js';
import type { AccountLifecycleDependencies } from '../features/account/dependencies.js';
import { API_ROUTES } from './api-routes.js';
import { servicesOf, withClock, type ApiServices } from './api-services.js';
import type { AppDependencies } from './build-dependencies.js';

/** What a long-lived host serves: the public API, and the operator API beside it where admin keys are set. */
export type ServedServices = ApiServices & OperatorServices;

/**
 * The routes and services of a long-lived host (`npm start`, Deno, Bun): the operator API
 * (OPERATOR_ROUTES) only when PASSLANE_ADMIN_KEYS is set, behind those keys; otherwise its paths
 * are unknown (404), as on the public API everywhere.
 */
export function servedApi(config: Pick<PasslaneConfig, 'operators'>, deps: AppDependencies): { routes: readonly AnyRoute<ServedServices>[]; services: ServedServices } {
  const keys = config.operators?.adminKeys;
  const operators: OperatorServices = {
    operators: async () => {
      if (keys === undefined) throw new Error('the operator API is off: PASSLANE_ADMIN_KEYS is not set');
      return { ...withClock(deps), operatorAuthentication: adminKeyAuthentication(keys) };
    },
  };
  const routes: readonly AnyRoute<ServedServices>[] = keys === undefined ? API_ROUTES : [...API_ROUTES, ...OPERATOR_ROUTES];
  return { routes, services: { ...servicesOf(deps), ...operators } };
}

/**
 * The Lambda admin function's service (its infra: the HTTP API's AWS_IAM authorization in front):
 * the lifecycle's dependencies and the IAM principal API Gateway authorized as the operator.
 * Its entry is `lambdaHandler(OPERATOR_ROUTES, { operators: async () => lambdaOperatorDependencies(await buildAccountLifecycleDependencies(...)) })`.
 */
export function lambdaOperatorDependencies(deps: AccountLifecycleDependencies): Awaited<ReturnType<OperatorServices['operators']>> {
  return { ...deps, operatorAuthentication: iamPrincipalAuthentication() };
}
