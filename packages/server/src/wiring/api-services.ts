import type { LoginServices, MfaLoginServices } from '../features/login/dependencies.js';
import type { FactorUndoServices, MfaServices } from '../features/mfa/dependencies.js';
import type { PasskeyLoginServices, PasskeyServices } from '../features/passkeys/dependencies.js';
import type { PasswordServices } from '../features/password/dependencies.js';
import type { RecoveryServices } from '../features/recovery/dependencies.js';
import type { DeviceApprovalServices } from '../features/device-approval/dependencies.js';
import type { EmailChangeServices } from '../features/email-change/dependencies.js';
import type { FederationServices } from '../features/federation/dependencies.js';
import type { RegisterServices } from '../features/register/dependencies.js';
import type { RefreshServices, SessionServices } from '../features/sessions/dependencies.js';
import type { CallerServices } from '../features/sessions/caller-services.js';
import { sessionAuthenticator, type CallerCheckDependencies } from '../features/mfa/session-authenticator.js';
import type { PublicTokenServices } from '../features/tokens/dependencies.js';
import type { AccountServices } from '../features/account/dependencies.js';
import type { AppDependencies } from './build-dependencies.js';

/**
 * What the API's routes ask for, each feature's service as the feature states it: a host builds
 * each on first use, so it pays only for what its routes touch (the JWKS function builds no
 * table client or hasher, register loads no signing key).
 */
export type ApiServices = LoginServices &
  MfaLoginServices &
  MfaServices &
  FactorUndoServices &
  PasskeyServices &
  PasskeyLoginServices &
  RegisterServices &
  PasswordServices &
  RecoveryServices &
  DeviceApprovalServices &
  RefreshServices &
  SessionServices &
  CallerServices &
  AccountServices &
  EmailChangeServices &
  FederationServices &
  PublicTokenServices;

/**
 * The API's services over dependencies already built (long-lived hosts build them once at start).
 * Plainly: here every feature gets all the dependencies (`AppDependencies` holds every feature's
 * type), since one process serves every route and builds each part once anyway. Only the Lambda
 * functions (functions/*.ts) build for a feature what its type asks for (`buildMfaDependencies`,
 * ...), because each is its own bundle, role and secrets.
 */
export function servicesOf(deps: AppDependencies): ApiServices {
  return {
    login: async () => deps,
    mfaLogin: async () => deps,
    mfa: async () => deps,
    factorUndo: async () => deps,
    passkeys: async () => deps,
    passkeyLogin: async () => deps,
    register: async () => deps,
    password: async () => deps,
    recovery: async () => deps,
    deviceApproval: async () => deps,
    refresh: async () => deps,
    sessions: async () => deps,
    authenticator: async () => sessionAuthenticator(deps),
    account: async () => deps,
    emailChange: async () => deps,
    federation: async () => deps,
    identities: async () => deps,
    publicTokens: async () => deps.tokens,
  };
}

/**
 * The callers' check over a function's own dependencies (functions/*.ts): `dependencies` should
 * be built once (onceUntilFailure), so the check and the route share one build.
 */
export function authenticatorOver(dependencies: () => Promise<CallerCheckDependencies>): CallerServices['authenticator'] {
  return async () => sessionAuthenticator(await dependencies());
}
