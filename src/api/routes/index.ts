import type { Route } from '../route.js';
import type { ApiServices } from '../services.js';
import { changePasswordRoute } from './change-password.js';
import { jwksRoute } from './jwks.js';
import { loginRoute } from './login.js';
import { logoutRoute } from './logout.js';
import { openIdConfigurationRoute } from './openid-configuration.js';
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from './recovery.js';
import { registerRoute } from './register.js';
import { deleteDeviceRoute, deleteSessionRoute, listSessionsRoute } from './sessions.js';
import { tokenRoute } from './token.js';

export { changePasswordRoute, confirmPasswordResetRoute, deleteDeviceRoute, deleteSessionRoute, jwksRoute, listSessionsRoute, loginRoute, logoutRoute, openIdConfigurationRoute, registerRoute, requestPasswordResetRoute, resendVerificationRoute, tokenRoute, verifyEmailRoute };

/**
 * The API: the one list a new route is added to. Every host serves it (the Lambda functions one
 * route each, by serverless.yml); the contract suite runs against every host and fails on a
 * route a host does not serve or answers differently.
 */
export const API_ROUTES: readonly Route<ApiServices>[] = [
  registerRoute,
  loginRoute,
  tokenRoute,
  logoutRoute,
  listSessionsRoute,
  deleteSessionRoute,
  deleteDeviceRoute,
  changePasswordRoute,
  requestPasswordResetRoute,
  confirmPasswordResetRoute,
  verifyEmailRoute,
  resendVerificationRoute,
  jwksRoute,
  openIdConfigurationRoute,
];
