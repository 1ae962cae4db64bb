import type { AddedFactor } from '../../mail/account-mail.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { UndoableFactor } from '../../storage/factor-undo-store.js';
import { formatOneTimeToken, newOneTimeToken } from '../recovery/one-time-token.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { FactorAddedMailDependencies } from './dependencies.js';
import { MFA_LIMITS } from './settings.js';

/**
 * Tells the owner a factor was added, with a "this wasn't me" link that takes that factor away
 * (undo-factor.ts): a week, once, its own item, so a later factor's mail does not void it. The
 * first factor is trusted on first use (a password alone adds it), and this link is what undoes
 * a stranger's. Best effort, as every factor mail: the factor stays whatever storage or mail does
 * (a failure is audited, never answered).
 */
export async function mailFactorAdded(
  deps: FactorAddedMailDependencies,
  input: { userId: string; accountKey: string; email?: string; change: AddedFactor; factor: UndoableFactor; now: Date },
): Promise<void> {
  try {
    // The address, when the caller has not read the account already.
    const email = input.email ?? (await deps.users.getUserById(input.userId))?.email;
    if (email === undefined) return;
    const token = newOneTimeToken(input.accountKey);
    const expiresIn = MFA_LIMITS.undoLinkSeconds;
    await deps.factorUndos.put(input.accountKey, secretHash(token.secret), { userId: input.userId, email, factor: input.factor, expiresAt: epochSeconds(input.now) + expiresIn });
    await deps.mail.factorAdded(email, input.change, formatOneTimeToken(token), expiresIn);
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'factor_added', code: (error as { code?: string }).code ?? 'unknown' });
  }
}
