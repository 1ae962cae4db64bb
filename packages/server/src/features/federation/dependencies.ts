import type { Audit } from '../../accounts/audit-events.js';
import type { AttemptCounterDependencies } from '../../accounts/enforce-rate-limits.js';
import type { SignupHook } from '../../hooks/signup-hook.js';
import type { AccountStore } from '../../storage/account-store.js';
import type { FederationFlowStore } from '../../storage/federation-flow-store.js';
import type { IdentityStore } from '../../storage/identity-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { LoginGuardStore } from '../../storage/login-guard-store.js';
import type { FinishLoginDependencies } from '../login/finish-login.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import type { ProviderDirectory } from './provider-directory.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

/** The start and the callback: the providers, the flow's short-lived items and the start's count per source; nothing of accounts. */
export interface FederationFlowDependencies extends AttemptCounterDependencies {
  providers: ProviderDirectory;
  flows: Pick<FederationFlowStore, 'put' | 'spend'>;
  audit: Audit;
  now: () => Date;
}

/** From an identity to its account (resolve-identity.ts): the lookups and the accounts, which a first sign-in creates. */
export interface IdentityAccountDependencies extends AccountEventDependencies {
  identities: Pick<IdentityStore, 'read' | 'claim' | 'release' | 'record' | 'list'>;
  users: Pick<AccountStore, 'getUserByEmail' | 'createUser'>;
  fingerprint: (canonicalEmail: string) => string;
  /** Asked before a first sign-in creates an account (accounts/check-signup.ts); absent: nothing is asked. */
  signupHook?: SignupHook;
  audit: Audit;
  now: () => Date;
}

/** GET /identities, DELETE /identities/{id}, POST /identities/link: a live session's account and its identities. */
export type IdentityManagementDependencies = SessionCheckDependencies &
  AccountEventDependencies & {
  identities: Pick<IdentityStore, 'read' | 'claim' | 'release' | 'record' | 'list' | 'unlist'>;
  flows: Pick<FederationFlowStore, 'spend'>;
  users: Pick<AccountStore, 'getUserById'>;
  /** Whether the account has a passkey (its factors item). */
  mfa: Pick<MfaStore, 'read'>;
  audit: Audit;
  now: () => Date;
};

/**
 * The flow's routes (start, callback, POST /oauth/token): the providers, the flow's items, the
 * identities, and what the login's shared step takes (features/login/finish-login.ts), with the
 * reads and reservations of the federated strategy (redeem-app-code.ts).
 */
export type FederationDependencies = FederationFlowDependencies &
  IdentityAccountDependencies &
  FinishLoginDependencies & {
    loginGuard: Pick<LoginGuardStore, 'read' | 'reserve' | 'giveBack' | 'clearFailures'>;
    now: () => Date;
  };

/** The routes' services: the flow's (start, callback, the app code's redemption) and the identities'. */
export interface FederationServices {
  federation(): Promise<FederationDependencies>;
  identities(): Promise<IdentityManagementDependencies>;
}
