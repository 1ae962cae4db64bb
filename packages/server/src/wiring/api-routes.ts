import type { AnyRoute } from '../api/route.js';
import { loginRoute } from '../features/login/login-route.js';
import { loginMfaRoute } from '../features/login/login-mfa-route.js';
import { confirmTotpRoute, enrolTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute } from '../features/mfa/mfa-routes.js';
import { undoFactorRoute } from '../features/mfa/undo-factor-route.js';
import {
  listPasskeysRoute,
  passkeyLoginOptionsRoute,
  passkeyLoginRoute,
  passkeyRegistrationOptionsRoute,
  registerPasskeyRoute,
  removePasskeyRoute,
  renamePasskeyRoute,
} from '../features/passkeys/passkey-routes.js';
import { changePasswordRoute } from '../features/password/change-password-route.js';
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../features/recovery/recovery-routes.js';
import { confirmDeviceApprovalRoute, requestDeviceApprovalRoute } from '../features/device-approval/device-approval-routes.js';
import { confirmEmailChangeRoute, requestEmailChangeRoute, undoEmailChangeRoute } from '../features/email-change/email-change-routes.js';
import { registerRoute } from '../features/register/register-route.js';
import { logoutRoute } from '../features/sessions/logout-route.js';
import { deleteDeviceRoute, deleteSessionRoute, listSessionsRoute } from '../features/sessions/session-routes.js';
import { tokenRoute } from '../features/sessions/token-route.js';
import { authorizationServerMetadataRoute } from '../features/tokens/authorization-server-metadata-route.js';
import { jwksRoute } from '../features/tokens/jwks-route.js';
import { openIdConfigurationRoute } from '../features/tokens/openid-configuration-route.js';
import { deleteAccountRoute } from '../features/account/delete-account-route.js';
import { oauthCallbackFormRoute, oauthCallbackRoute, oauthStartRoute, oauthTokenRoute } from '../features/federation/federation-routes.js';
import { linkIdentityRoute, listIdentitiesRoute, removeIdentityRoute } from '../features/federation/identity-routes.js';
import type { ApiServices } from './api-services.js';

/**
 * The API: the one list a new route is added to. Every host serves it (the Lambda functions one
 * route each, by serverless.yml); the contract suite runs against every host and fails on a
 * route a host does not serve or answers differently, and openapi.yaml is generated from it.
 */
export const API_ROUTES: readonly AnyRoute<ApiServices>[] = [
  registerRoute,
  loginRoute,
  loginMfaRoute,
  tokenRoute,
  logoutRoute,
  listSessionsRoute,
  deleteSessionRoute,
  deleteDeviceRoute,
  changePasswordRoute,
  deleteAccountRoute,
  requestPasswordResetRoute,
  confirmPasswordResetRoute,
  verifyEmailRoute,
  resendVerificationRoute,
  requestDeviceApprovalRoute,
  confirmDeviceApprovalRoute,
  requestEmailChangeRoute,
  confirmEmailChangeRoute,
  undoEmailChangeRoute,
  enrolTotpRoute,
  confirmTotpRoute,
  regenerateRecoveryCodesRoute,
  removeTotpRoute,
  undoFactorRoute,
  passkeyRegistrationOptionsRoute,
  registerPasskeyRoute,
  listPasskeysRoute,
  renamePasskeyRoute,
  removePasskeyRoute,
  passkeyLoginOptionsRoute,
  passkeyLoginRoute,
  oauthStartRoute,
  oauthCallbackRoute,
  oauthCallbackFormRoute,
  oauthTokenRoute,
  listIdentitiesRoute,
  linkIdentityRoute,
  removeIdentityRoute,
  jwksRoute,
  openIdConfigurationRoute,
  authorizationServerMetadataRoute,
];
