import type { AttemptCounterDependencies } from '../../accounts/enforce-rate-limits.js';
import type { LoginGuardStore } from '../../storage/login-guard-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { PasskeyStore } from '../../storage/passkey-store.js';
import type { LoginDependencies } from '../login/dependencies.js';
import type { MfaMailDependencies } from '../mfa/dependencies.js';
import type { SessionCheckDependencies } from '../sessions/dependencies.js';
import type { WebAuthnConfig } from './settings.js';

/**
 * The /passkeys routes (register, list, rename, remove): the caller's live session (the public
 * keys suffice), the account's factors, the passkeys' items and challenges, the mail. `webauthn`
 * absent: passkeys are off (`passkeys_not_configured`).
 */
export type PasskeyDependencies = SessionCheckDependencies &
  MfaMailDependencies & {
    mfa: Pick<MfaStore, 'read'>;
    passkeys: Pick<PasskeyStore, 'add' | 'rename' | 'remove' | 'putLookup' | 'deleteLookup' | 'putChallenge' | 'consumeChallenge'>;
    webauthn?: WebAuthnConfig;
    now?: () => Date;
  };

/**
 * POST /passkey/login/options and /passkey/login: a login's parts (its limits, sessions, signing
 * key), the attempt counters (the options are rate-limited per source), the lookup items, the
 * challenges and the counter writes.
 */
export type PasskeyLoginDependencies = LoginDependencies &
  AttemptCounterDependencies & {
    passkeys: Pick<PasskeyStore, 'readLookup' | 'putChallenge' | 'consumeChallenge' | 'recordUse'>;
    /** An unknown credential's failure is counted against its source alone. */
    loginGuard: Pick<LoginGuardStore, 'recordSourceFailure'>;
    webauthn?: WebAuthnConfig;
  };

/** The passkey routes' services. */
export interface PasskeyServices {
  passkeys(): Promise<PasskeyDependencies>;
  passkeyLogin(): Promise<PasskeyLoginDependencies>;
}
