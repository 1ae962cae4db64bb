import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { MfaStore, StoredMfa } from '../../storage/mfa-store.js';
import type { Audit } from '../../accounts/audit-events.js';
import type { WebAuthnConfig } from '../../webauthn/relying-party.js';
import { mfaMethods } from '../mfa/check-second-factor.js';
import { MFA_LIMITS } from '../mfa/settings.js';
import type { MfaRequiredResult } from './login-verdict.js';
import { newMfaToken, passwordMark } from './mfa-token.js';

/** What an MFA token takes: where it is kept, the relying party (its passkeys offered when passkeys are on). */
export interface MfaChallengeDependencies {
  mfa: Pick<MfaStore, 'putLogin'>;
  webauthn?: WebAuthnConfig;
  audit: Audit;
  now?: () => Date;
}

/**
 * The second factor due on a proof without one: a new MFA token, stored by its hash with the
 * account and a mark of the password verified, and with the account's passkeys the request
 * options of an assertion (its challenge stored in the token's item, spent with it). Failures
 * stay counted until the second factor is right (POST /login/mfa clears them).
 */
export async function mfaChallenge(
  deps: MfaChallengeDependencies,
  login: { userId: string; email: string; accountKey: string; verifiedHash: string },
  factors: StoredMfa,
): Promise<MfaRequiredResult> {
  const methods = mfaMethods(factors, { webauthn: deps.webauthn !== undefined });
  // Imported here, not at the top: a password login's cold start does not parse @simplewebauthn (the Lambda bundle keeps it in a chunk).
  const webauthn =
    deps.webauthn !== undefined && methods.includes('webauthn')
      ? await (await import('../../webauthn/check-passkey-assertion.js')).secondFactorOptions(deps.webauthn, factors.passkeys)
      : undefined;
  const { token, hash } = newMfaToken();
  const now = deps.now?.() ?? new Date();
  await deps.mfa.putLogin(hash, {
    userId: login.userId,
    email: login.email,
    accountKey: login.accountKey,
    passwordMark: passwordMark(login.verifiedHash),
    expiresAt: epochSeconds(now) + MFA_LIMITS.loginTokenSeconds,
    ...(webauthn !== undefined && { webauthnChallenge: webauthn.challenge }),
  });
  deps.audit({ type: 'auth.mfa_challenged', userId: login.userId });
  return { kind: 'mfa_required', mfaToken: token, methods, ...(webauthn !== undefined && { webauthn }) };
}
