import type { AccountLifecycleDependencies } from '../account/dependencies.js';
import type { OperatorAuthentication } from './operator-authentication.js';

/** The operator API: the lifecycle's use cases (features/account) and who may call them. */
export type OperatorDependencies = AccountLifecycleDependencies & {
  operatorAuthentication: OperatorAuthentication;
};

/** The operator routes' service: never part of the public API's (ApiServices). */
export interface OperatorServices {
  operators(): Promise<OperatorDependencies>;
}
