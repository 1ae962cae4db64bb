import { FactorSuspendedError } from '../../accounts/errors.js';
import type { MfaChange } from '../../mail/account-mail.js';
import type { MfaStore } from '../../storage/mfa-store.js';
import type { FactorKind } from '../../storage/table.js';
import { MFA_LIMITS } from './settings.js';

/**
 * Second factors bounded over their life (SECURITY.md, "Second factors"): every code or
 * assertion is reserved on its kind's count before it is checked, so neither a burst nor more
 * MFA tokens get more than MFA_LIMITS.factorFailures wrong ones; the count ends only when a
 * factor is right (the write that spends it) or the owner resets the password from their
 * mailbox. Past the bound the kind is suspended: FactorSuspendedError, before any check.
 */
export async function reserveFactorAttempt(deps: { mfa: Pick<MfaStore, 'reserveFactorAttempt'> }, accountKey: string, kind: FactorKind): Promise<number> {
  const count = await deps.mfa.reserveFactorAttempt(accountKey, kind, MFA_LIMITS.factorFailures);
  if (count === undefined) throw new FactorSuspendedError();
  return count;
}

/** Whether a kind is suspended as read (the login's read), so `mfa_required` offers only what can still be checked. */
export function isSuspended(failures: Readonly<Record<FactorKind, number>>, kind: FactorKind): boolean {
  return failures[kind] >= MFA_LIMITS.factorFailures;
}

/**
 * After a wrong one (`count`, this one included): the owner is told at the first burst and at
 * the suspension, once each (a reservation's count is exact, so exactly one request sees each).
 */
export async function noticeFactorFailure(count: number, tell: (change: MfaChange) => Promise<void>): Promise<void> {
  if (count === MFA_LIMITS.factorFailuresMailAt) await tell('factor_failures');
  else if (count === MFA_LIMITS.factorFailures) await tell('factor_suspended');
}
