import { InvalidOneTimeTokenError, TemporarilyUnavailableError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';
import type { StoredFactorUndo } from '../../storage/factor-undo-store.js';
import { lockPasswordUntilReset, mailResetLinkNow } from '../recovery/lock-password-until-reset.js';
import { parseOneTimeToken } from '../recovery/one-time-token.js';
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
  const now = deps.now();
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
  await lockPasswordUntilReset(deps, { email: undo.email, userId: undo.userId, reason: 'factor-undo', now });
  await endOtherSessions(deps, { accountKey, userId: undo.userId, reason: 'factor_undone' });
  if (!(await deps.factorUndos.consume(accountKey, tokenHash))) return reject('used');
  deps.audit({ type: 'auth.factor_undone', userId: undo.userId, factor: undo.factor.kind, removed: factorRemoved });
  await mailResetLinkNow(deps, { accountKey, email: undo.email, now });
  return { factorRemoved };
}

/** The factor the link names, if it is still there; true when removed. The last factor takes the recovery codes. */
async function removeFactor(deps: FactorUndoDependencies, accountKey: string, undo: StoredFactorUndo): Promise<boolean> {
  const { factor } = undo;
  const removed = deps.accountEvents.of('factor.removed', undo.userId, factor.kind === 'totp' ? { factor: 'totp', by: 'undo_link' } : { factor: 'passkey', credentialId: factor.credentialId, by: 'undo_link' });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const factors = await deps.mfa.read(accountKey);
    if (factor.kind === 'totp') {
      // Only that secret: a TOTP the owner set up since is theirs.
      if (factors?.totpSecret !== factor.sealedSecret) return false;
      if (await deps.mfa.removeTotp(accountKey, factor.sealedSecret, factors.passkeys.size === 0, removed)) return true;
    } else {
      if (factors?.passkeys.has(factor.credentialId) !== true) return false;
      const lastFactor = factors.totpSecret === undefined && factors.passkeys.size === 1;
      if (await deps.passkeys.remove(accountKey, factor.credentialId, lastFactor, removed)) {
        await deps.passkeys.deleteLookup(factor.credentialId, accountKey);
        return true;
      }
    }
  }
  throw new TemporarilyUnavailableError(1);
}
