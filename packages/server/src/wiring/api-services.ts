import type { LoginServices, MfaLoginServices } from '../features/login/dependencies.js';
import type { FactorUndoServices, MfaServices } from '../features/mfa/dependencies.js';
import type { PasskeyLoginServices, PasskeyServices } from '../features/passkeys/dependencies.js';
import type { PasswordServices } from '../features/password/dependencies.js';
import type { RecoveryServices } from '../features/recovery/dependencies.js';
import type { DeviceApprovalServices } from '../features/device-approval/dependencies.js';
import type { FederationServices } from '../features/federation/dependencies.js';
import type { RegisterServices } from '../features/register/dependencies.js';
import type { RefreshServices, SessionServices } from '../features/sessions/dependencies.js';
import type { PublicTokenServices } from '../features/tokens/dependencies.js';
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
  FederationServices &
  PublicTokenServices;

/** The API's services over dependencies already built (long-lived hosts build them once at start). */
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
    federation: async () => deps,
    identities: async () => deps,
    publicTokens: async () => deps.tokens,
  };
}
