import type { MfaMethod } from '../../accounts/errors.js';
import type { StoredMfa } from '../../storage/mfa-store.js';
import type { SecondFactorDependencies } from './dependencies.js';
import { recoveryCodeHash } from './recovery-codes.js';
import { matchTotp } from './totp.js';

/**
 * Checks and spends a second factor: a TOTP code of a step later than the last one accepted
 * (the step is stored with a conditional write, so of two uses of one code exactly one wins),
 * or an unused recovery code (deleted from the set on the condition that it is still there).
 * False for a wrong, replayed or used code alike.
 */
export async function checkSecondFactor(
  deps: SecondFactorDependencies,
  input: { accountKey: string; factors: StoredMfa; method: MfaMethod; code: string; now: Date },
): Promise<boolean> {
  const { accountKey, factors, code } = input;
  if (input.method === 'recovery_code') {
    const hash = recoveryCodeHash(code);
    return hash !== undefined && factors.recoveryCodes.includes(hash) && deps.mfa.useRecoveryCode(accountKey, hash);
  }
  if (factors.totpSecret === undefined) return false;
  const step = matchTotp(await deps.secretBox.open(accountKey, factors.totpSecret), code.replace(/\s/g, ''), input.now);
  if (step === undefined || step <= (factors.totpLastStep ?? -1)) return false;
  return deps.mfa.useTotpStep(accountKey, factors.totpSecret, step);
}

/** The methods an account's factors offer a login: passkeys will add `webauthn` here. */
export function mfaMethods(factors: StoredMfa | undefined): MfaMethod[] {
  if (factors?.totpSecret === undefined) return [];
  return ['totp', 'recovery_code'];
}
