import type { MfaChange } from '../../mail/account-mail.js';
import type { MfaMethod } from '../../accounts/errors.js';
import { hasActiveFactor, type StoredMfa } from '../../storage/mfa-store.js';
import type { SecondFactorDependencies } from './dependencies.js';
import { isSuspended, noticeFactorFailure, reserveFactorAttempt } from './factor-failures.js';
import { recoveryCodeHash } from './recovery-codes.js';
import { matchTotp } from './totp.js';

/**
 * Checks and spends a second factor: a TOTP code of a step later than the last one accepted
 * (the step is stored with a conditional write, so of two uses of one code exactly one wins),
 * or an unused recovery code (deleted from the set on the condition that it is still there).
 * The attempt is counted on its kind first (factor-failures.ts: FactorSuspendedError past the
 * bound, before anything is checked); a right one ends the counts. False for a wrong, replayed
 * or used code alike; `tell` mails the owner at the first burst of wrong ones.
 */
export async function checkSecondFactor(
  deps: SecondFactorDependencies,
  input: { accountKey: string; factors: StoredMfa; method: Exclude<MfaMethod, 'webauthn'>; code: string; now: Date; tell: (change: MfaChange) => Promise<void> },
): Promise<boolean> {
  const count = await reserveFactorAttempt(deps, input.accountKey, input.method);
  const right = await spendSecondFactor(deps, input);
  if (!right) await noticeFactorFailure(count, input.tell);
  return right;
}

async function spendSecondFactor(deps: SecondFactorDependencies, input: { accountKey: string; factors: StoredMfa; method: Exclude<MfaMethod, 'webauthn'>; code: string; now: Date }): Promise<boolean> {
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

/**
 * The methods an account's factors offer a login: `totp` when active, `webauthn` when it has a
 * passkey and the deployment has a relying party, `recovery_code` while codes are left; none of
 * a kind suspended by wrong attempts (factor-failures.ts). Empty when no factor is active; a
 * factor the deployment cannot check (passkeys unconfigured) is still a factor: the login is
 * refused the password alone (hasActiveFactor decides that).
 */
export function mfaMethods(factors: StoredMfa | undefined, options: { webauthn?: boolean } = {}): MfaMethod[] {
  if (factors === undefined || !hasActiveFactor(factors)) return [];
  const methods: MfaMethod[] = [];
  if (factors.totpSecret !== undefined) methods.push('totp');
  if (options.webauthn === true && factors.passkeys.size > 0) methods.push('webauthn');
  if (factors.recoveryCodes.length > 0) methods.push('recovery_code');
  return methods.filter((method) => !isSuspended(factors.failures, method));
}
