/**
 * The Lambda functions' handlers (functions/*.ts) with the dependencies a test chooses: the same
 * route and Lambda host as the function, only `services` differ.
 */
import { loginRoute } from '../../packages/server/src/features/login/login-route.js';
import type { LoginServices, MfaLoginDependencies, MfaLoginServices } from '../../packages/server/src/features/login/dependencies.js';
import { loginMfaRoute } from '../../packages/server/src/features/login/login-mfa-route.js';
import type { FactorUndoDependencies, MfaDependencies } from '../../packages/server/src/features/mfa/dependencies.js';
import { undoFactorRoute } from '../../packages/server/src/features/mfa/undo-factor-route.js';
import { confirmTotpRoute, enrolTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute } from '../../packages/server/src/features/mfa/mfa-routes.js';
import type { AnyRoute } from '../../packages/server/src/api/route.js';
import { changePasswordRoute } from '../../packages/server/src/features/password/change-password-route.js';
import { deleteAccountRoute } from '../../packages/server/src/features/account/delete-account-route.js';
import type { AppDependencies } from '../../packages/server/src/wiring/build-dependencies.js';
import type { PasskeyDependencies, PasskeyLoginDependencies } from '../../packages/server/src/features/passkeys/dependencies.js';
import { listPasskeysRoute, passkeyLoginOptionsRoute, passkeyLoginRoute, passkeyRegistrationOptionsRoute, registerPasskeyRoute, removePasskeyRoute, renamePasskeyRoute } from '../../packages/server/src/features/passkeys/passkey-routes.js';
import type { PasswordChangeDependencies } from '../../packages/server/src/features/password/dependencies.js';
import type { RecoveryDependencies, RecoveryServices } from '../../packages/server/src/features/recovery/dependencies.js';
import type { DeviceApprovalDependencies, DeviceApprovalServices } from '../../packages/server/src/features/device-approval/dependencies.js';
import { confirmDeviceApprovalRoute, requestDeviceApprovalRoute } from '../../packages/server/src/features/device-approval/device-approval-routes.js';
import { confirmPasswordResetRoute, requestPasswordResetRoute, resendVerificationRoute, verifyEmailRoute } from '../../packages/server/src/features/recovery/recovery-routes.js';
import type { RegisterDependencies } from '../../packages/server/src/features/register/dependencies.js';
import { registerRoute } from '../../packages/server/src/features/register/register-route.js';
import type { RefreshDependencies, SessionManagementDependencies } from '../../packages/server/src/features/sessions/dependencies.js';
import { logoutRoute } from '../../packages/server/src/features/sessions/logout-route.js';
import { deleteSessionRoute, listSessionsRoute } from '../../packages/server/src/features/sessions/session-routes.js';
import { tokenRoute } from '../../packages/server/src/features/sessions/token-route.js';
import { authorizationServerMetadataRoute } from '../../packages/server/src/features/tokens/authorization-server-metadata-route.js';
import { jwksRoute } from '../../packages/server/src/features/tokens/jwks-route.js';
import { openIdConfigurationRoute } from '../../packages/server/src/features/tokens/openid-configuration-route.js';
import type { PublicTokenService } from '../../packages/server/src/features/tokens/token-service.js';
import { lambdaHandler } from '../../packages/server/src/runtimes/lambda/lambda-handler.js';
import { authenticatorOver } from '../../packages/server/src/wiring/api-services.js';
import type { CallerServices } from '../../packages/server/src/features/sessions/caller-services.js';
import type { EmailChangeDependencies, EmailChangeServices } from '../../packages/server/src/features/email-change/dependencies.js';
import { EMAIL_CHANGE_ROUTES } from '../../packages/server/src/features/email-change/email-change-routes.js';
import type { FederationDependencies, FederationServices, IdentityManagementDependencies } from '../../packages/server/src/features/federation/dependencies.js';
import { oauthCallbackFormRoute, oauthCallbackRoute, oauthStartRoute, oauthTokenRoute } from '../../packages/server/src/features/federation/federation-routes.js';
import { linkIdentityRoute, listIdentitiesRoute, removeIdentityRoute } from '../../packages/server/src/features/federation/identity-routes.js';

export type { LambdaHttpEvent, LambdaHttpResponse as HttpResponse } from '../../packages/server/src/runtimes/lambda/lambda-handler.js';

type Get<T> = () => Promise<T>;

export const createRegisterHandler = (get: Get<RegisterDependencies>) => lambdaHandler([registerRoute], { register: get });
/** The login function (functions/login.ts): the password step and POST /login/mfa. */
export const createLoginHandler = (get: Get<MfaLoginDependencies>) =>
  lambdaHandler<LoginServices & MfaLoginServices>([loginRoute, loginMfaRoute] as AnyRoute<LoginServices & MfaLoginServices>[], { login: get, mfaLogin: get });
/** The MFA function (functions/mfa.ts). */
export const createMfaHandler = (get: Get<MfaDependencies>) => lambdaHandler([enrolTotpRoute, confirmTotpRoute, regenerateRecoveryCodesRoute, removeTotpRoute], { mfa: get, authenticator: authenticatorOver(get) });
/** The factorUndo function (functions/factor-undo.ts): a factor's "this wasn't me" link. */
export const createFactorUndoHandler = (get: Get<FactorUndoDependencies>) => lambdaHandler([undoFactorRoute], { factorUndo: get });
/** The passkeys function (functions/passkeys.ts): registration, list, rename, removal. */
export const createPasskeysHandler = (get: Get<PasskeyDependencies>) =>
  lambdaHandler([passkeyRegistrationOptionsRoute, registerPasskeyRoute, listPasskeysRoute, renamePasskeyRoute, removePasskeyRoute], { passkeys: get, authenticator: authenticatorOver(get) });
/** The passkeyLogin function (functions/passkey-login.ts): the options and the passwordless login. */
export const createPasskeyLoginHandler = (get: Get<PasskeyLoginDependencies>) => lambdaHandler([passkeyLoginOptionsRoute, passkeyLoginRoute], { passkeyLogin: get });
export const createPasswordHandler = (get: Get<PasswordChangeDependencies>) => lambdaHandler([changePasswordRoute], { password: get, authenticator: authenticatorOver(get) });
/** The account function (functions/account.ts): DELETE /account. */
export const createAccountHandler = (get: Get<AppDependencies>) => lambdaHandler([deleteAccountRoute], { account: get, authenticator: authenticatorOver(get) });
/** The federation function (functions/federation.ts): the provider routes and the account's identities. */
export const createFederationHandler = (get: Get<FederationDependencies & IdentityManagementDependencies>) =>
  lambdaHandler<FederationServices & CallerServices>(
    [oauthStartRoute, oauthCallbackRoute, oauthCallbackFormRoute, oauthTokenRoute, listIdentitiesRoute, removeIdentityRoute, linkIdentityRoute] as AnyRoute<FederationServices & CallerServices>[],
    { federation: get, identities: get, authenticator: authenticatorOver(get) },
  );
export const createTokenHandler = (get: Get<RefreshDependencies>) => lambdaHandler([tokenRoute], { refresh: get });
export const createSessionsHandler = (get: Get<SessionManagementDependencies>) => lambdaHandler([logoutRoute, listSessionsRoute, deleteSessionRoute], { sessions: get, authenticator: authenticatorOver(get) });
/** The recovery function (functions/recovery.ts): reset, its confirmation, email verification and its resend, the device approval and its confirmation. */
export const createRecoveryHandler = (get: Get<RecoveryDependencies & DeviceApprovalDependencies>) =>
  lambdaHandler<RecoveryServices & DeviceApprovalServices & CallerServices>(
    [requestPasswordResetRoute, confirmPasswordResetRoute, verifyEmailRoute, resendVerificationRoute, requestDeviceApprovalRoute, confirmDeviceApprovalRoute] as AnyRoute<
      RecoveryServices & DeviceApprovalServices & CallerServices
    >[],
    { recovery: get, deviceApproval: get, authenticator: authenticatorOver(get) },
  );
/** The emailChange function (functions/email-change.ts): the request, the new address's link, the old address's undo. */
export const createEmailChangeHandler = (get: Get<EmailChangeDependencies>) =>
  lambdaHandler<EmailChangeServices & CallerServices>([...EMAIL_CHANGE_ROUTES] as AnyRoute<EmailChangeServices & CallerServices>[], { emailChange: get, authenticator: authenticatorOver(get) });
export const createJwksHandler = (get: Get<Pick<PublicTokenService, 'jwks'>>) => lambdaHandler([jwksRoute], { publicTokens: get as Get<PublicTokenService> });
/** The discovery function (functions/openid-configuration.ts): the OpenID document and RFC 8414's. */
export const createOpenIdConfigurationHandler = (get: Get<Pick<PublicTokenService, 'issuer'>>) =>
  lambdaHandler([openIdConfigurationRoute, authorizationServerMetadataRoute], { publicTokens: get as Get<PublicTokenService> });
