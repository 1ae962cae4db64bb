import type { AttemptCounterDependencies } from '../../accounts/enforce-rate-limits.js';
import type { AccountMail } from '../../mail/account-mail.js';
import type { LoginGuardStore } from '../../storage/login-guard-store.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { PasskeyStore } from '../../storage/passkey-store.js';
import type { LoginDependencies } from '../login/dependencies.js';
import type { FactorEnabledDependencies, MfaMailDependencies } from '../mfa/dependencies.js';
import type { VerificationMailDependencies } from '../recovery/dependencies.js';
import type { SessionCheckDependencies, StartSessionDependencies } from '../sessions/dependencies.js';
import type { WebAuthnConfig } from './settings.js';
import type { AccountEventDependencies } from '../../events/account-events.js';

/**
 * The /passkeys routes (register, list, rename, remove): the caller's live session (the public
 * keys suffice), the account's factors, the passkeys' items and challenges, the mail. `webauthn`
 * absent: passkeys are off (`passkeys_not_configured`).
 */
export type PasskeyDependencies = SessionCheckDependencies &
  AccountEventDependencies &
  MfaMailDependencies &
  FactorEnabledDependencies & {
    mfa: Pick<MfaStore, 'read'>;
    mail: Pick<AccountMail, 'mfaChanged' | 'factorAdded'>;
    passkeys: Pick<PasskeyStore, 'add' | 'rename' | 'remove' | 'putLookup' | 'deleteLookup' | 'putChallenge' | 'consumeChallenge'>;
    webauthn?: WebAuthnConfig;
    now: () => Date;
  };

/**
 * POST /passkey/login/options and /passkey/login: what a login needs but a password's parts (no
 * hasher, pepper, password policy or old system: no password is verified), the attempt counters
 * (the options are rate-limited per source), the lookup items, the challenges and the counter
 * writes. The credential's lookup names the account's key, so no fingerprint key either.
 */
export type PasskeyLoginDependencies = StartSessionDependencies &
  VerificationMailDependencies &
  AccountEventDependencies &
  AttemptCounterDependencies &
  Pick<LoginDependencies, 'tokens' | 'rateLimits'> & {
    /** The login's read and counters; an unknown credential is counted against its source alone. */
    loginGuard: Pick<LoginGuardStore, 'read' | 'reserve' | 'giveBack' | 'clearFailures' | 'reserveSource'>;
    /** A known device's attempts are counted in the sessions item. */
    sessions: Pick<SessionStore, 'reserveDeviceAttempt' | 'giveBackDeviceAttempt'>;
    /**
     * The passkeys' wrong assertions, counted over their life (features/mfa/factor-failures.ts);
     * `putLogin` is the login pipeline's for a proof without a second factor, which a passkey never is.
     */
    mfa: Pick<MfaStore, 'reserveFactorAttempt' | 'putLogin'>;
    /** The owner is told of a burst of wrong assertions. */
    mail: Pick<MfaMailDependencies['mail'], 'mfaChanged'>;
    passkeys: Pick<PasskeyStore, 'readLookup' | 'putChallenge' | 'consumeChallenge' | 'recordUse'>;
    webauthn?: WebAuthnConfig;
  };

/** The /passkeys routes' service. */
export interface PasskeyServices {
  passkeys(): Promise<PasskeyDependencies>;
}

/** The /passkey/login routes' service: apart, so the function that signs tokens holds only these. */
export interface PasskeyLoginServices {
  passkeyLogin(): Promise<PasskeyLoginDependencies>;
}
