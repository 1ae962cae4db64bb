/**
 * The Lambda functions' handlers (functions/*.ts) with the dependencies a test chooses: the same
 * route and Lambda host as the function, only `services` differ.
 */
import {
  changePasswordRoute,
  deleteSessionRoute,
  jwksRoute,
  listSessionsRoute,
  loginRoute,
  logoutRoute,
  openIdConfigurationRoute,
  registerRoute,
  tokenRoute,
  confirmPasswordResetRoute,
  requestPasswordResetRoute,
  resendVerificationRoute,
  verifyEmailRoute,
} from '../../packages/server/src/api/routes.js';
import type { PublicTokenService } from '../../packages/server/src/features/tokens/token-service.js';
import { lambdaHandler } from '../../packages/server/src/runtimes/lambda/lambda-handler.js';
import type { AccountDependencies, AuthDependencies, RegisterDependencies, SessionDependencies, SessionManagementDependencies } from '../../packages/server/src/accounts/dependencies.js';

export type { LambdaHttpEvent, LambdaHttpResponse as HttpResponse } from '../../packages/server/src/runtimes/lambda/lambda-handler.js';

type Get<T> = () => Promise<T>;

export const createRegisterHandler = (get: Get<RegisterDependencies>) => lambdaHandler([registerRoute], { register: get });
export const createLoginHandler = (get: Get<AuthDependencies>) => lambdaHandler([loginRoute], { auth: get });
export const createPasswordHandler = (get: Get<AccountDependencies>) => lambdaHandler([changePasswordRoute], { account: get });
export const createTokenHandler = (get: Get<SessionDependencies>) => lambdaHandler([tokenRoute], { sessions: get });
export const createSessionsHandler = (get: Get<SessionManagementDependencies>) =>
  lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute], { sessionManagement: get });
/** The recovery function (functions/recovery.ts): reset, its confirmation, email verification and its resend. */
export const createRecoveryHandler = (get: Get<AccountDependencies>) =>
  lambdaHandler([requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute], { account: get });
export const createJwksHandler = (get: Get<Pick<PublicTokenService, 'jwks'>>) =>
  lambdaHandler([jwksRoute], { publicTokens: get as Get<PublicTokenService> });
export const createOpenIdConfigurationHandler = (get: Get<Pick<PublicTokenService, 'jwks' | 'issuer'>>) =>
  lambdaHandler([openIdConfigurationRoute], { publicTokens: get as Get<PublicTokenService> });
