import { InvalidOneTimeTokenError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { PASSWORD_RESET_REQUIRED } from '../../accounts/password-reset-required.js';
import { translateErrors } from '../../accounts/translate-errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import { HashChangedError } from '../../storage/errors.js';
import type { StoredFactorUndo } from '../../storage/factor-undo-store.js';
import { formatOneTimeToken, newOneTimeToken, parseOneTimeToken } from '../recovery/one-time-token.js';
import { endOtherSessions } from '../sessions/end-sessions.js';
import { secretHash } from '../sessions/refresh-token.js';
import type { FactorUndoDependencies } from './dependencies.js';

/** POST /mfa/undo's answer. */
export interface FactorUndone {
  /** The factor the mail was about was still there and is gone now (false: removed already). */
  factorRemoved: boolean;
}

/** Writes lost to a concurrent change of the account's factors (or its hash) before giving up (each re-reads). */
const MAX_ATTEMPTS = 3;

/**
 * POST /mfa/undo { token }: the "this wasn't me" link of a factor's mail (mail-factor-added.ts),
 * with the mailbox as the proof. Whoever added the factor knew the password, and may hold a
 * session and a device token: so the link, once, removes that factor (not
 * the others: the owner's own stay), ends every session and forgets every device of the account,
 * and makes the password unusable until a reset, whose link is mailed now. A reset by mail, not a
 * new password on this page: the page proves the mailbox once, and a reset link is the one path
 * by which a mailbox sets a password (its rules, its limits, its voiding of older links).
 */
export async function undoFactor(deps: FactorUndoDependencies, input: { token: string }): Promise<FactorUndone> {
  return translateErrors(async () => {
    const now = deps.now?.() ?? new Date();
    const reject = (reason: 'malformed' | 'unknown' | 'expired' | 'used'): never => {
      deps.audit({ type: 'auth.one_time_token_rejected', purpose: 'undo', reason });
      throw new InvalidOneTimeTokenError();
    };
    const token = parseOneTimeToken(input.token);
    if (token === undefined) return reject('malformed');
    const { accountKey } = token;
    const tokenHash = secretHash(token.secret);
    // Keyed by the secret's hash: a wrong secret finds nothing (factor-undo-store.ts).
    const undo = await deps.factorUndos.read(accountKey, tokenHash);
    if (undo === undefined) return reject('unknown');
    if (undo.expiresAt <= epochSeconds(now)) return reject('expired');
    // Every step is idempotent and the link is used last: a failure midway (storage down) leaves
    // it working for a retry, and of two racing uses both do the same once, one is told `invalid_token`.
    const factorRemoved = await removeFactor(deps, accountKey, undo);
    await lockPassword(deps, undo.email, undo.userId, now);
    await endOtherSessions(deps, { accountKey, userId: undo.userId, reason: 'factor_undone' });
    if (!(await deps.factorUndos.consume(accountKey, tokenHash))) return reject('used');
    deps.audit({ type: 'auth.factor_undone', userId: undo.userId, factor: undo.factor.kind, removed: factorRemoved });
    await mailResetLink(deps, accountKey, undo.email, now);
    return { factorRemoved };
  });
}

/** The factor the link names, if it is still there; true when removed. The last factor takes the recovery codes. */
async function removeFactor(deps: FactorUndoDependencies, accountKey: string, undo: StoredFactorUndo): Promise<boolean> {
  const { factor } = undo;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const factors = await deps.mfa.read(accountKey);
    if (factor.kind === 'totp') {
      // Only that secret: a TOTP the owner set up since is theirs.
      if (factors?.totpSecret !== factor.sealedSecret) return false;
      if (await deps.mfa.removeTotp(accountKey, factor.sealedSecret, factors.passkeys.size === 0)) return true;
    } else {
      if (factors?.passkeys.has(factor.credentialId) !== true) return false;
      const lastFactor = factors.totpSecret === undefined && factors.passkeys.size === 1;
      if (await deps.passkeys.remove(accountKey, factor.credentialId, lastFactor)) {
        await deps.passkeys.deleteLookup(factor.credentialId, accountKey);
        return true;
      }
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/** The password stops working (whoever added the factor knew it) until a reset; conditional on the hash read, as every change of it. */
async function lockPassword(deps: FactorUndoDependencies, email: string, userId: string, now: Date): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const user = await deps.users.getUserByEmail(email);
    // Another account at the address (the link's was deleted, the address registered again): not this link's to lock.
    if (user === undefined || user.userId !== userId || user.passwordHash === PASSWORD_RESET_REQUIRED) return;
    try {
      await deps.users.replacePasswordHash({ email, expectedHash: user.passwordHash, newHash: PASSWORD_RESET_REQUIRED, reason: 'factor-undo', now });
      return;
    } catch (error) {
      // A login's upgrade of the hash landed in between: read again and lock that.
      if (!(error instanceof HashChangedError)) throw error;
    }
  }
  throw new TemporarilyUnavailableError(1);
}

/**
 * A reset link, as POST /password/reset makes one but outside its hourly budget: the owner just
 * proved the mailbox. It replaces the account's outstanding reset link (one per account), so none
 * mailed before outlives this. Best effort (a failure is audited; the sign-in page asks for another).
 */
async function mailResetLink(deps: FactorUndoDependencies, accountKey: string, email: string, now: Date): Promise<void> {
  const token = newOneTimeToken(accountKey);
  const expiresIn = deps.recovery.resetTokenSeconds;
  try {
    await deps.oneTimeTokens.put('reset', accountKey, { tokenHash: secretHash(token.secret), email, expiresAt: epochSeconds(now) + expiresIn });
    await deps.mail.passwordReset(email, formatOneTimeToken(token), expiresIn);
  } catch (error) {
    deps.audit({ type: 'auth.mail_failed', mail: 'password_reset', code: (error as { code?: string }).code ?? 'unknown' });
  }
}
