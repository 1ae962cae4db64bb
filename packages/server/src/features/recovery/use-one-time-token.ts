import { parseOneTimeToken } from './one-time-token.js';
import { sameHash, secretHash } from '../sessions/refresh-token.js';
import type { OneTimeTokenPurpose, StoredOneTimeToken } from '../../storage/one-time-token-store.js';
import type { OneTimeTokenDependencies } from './dependencies.js';
import { InvalidOneTimeTokenError } from '../../accounts/errors.js';
import { epochSeconds } from '../../shared/epoch-seconds.js';

/** A presented token checked against the account's outstanding one, not yet used. */
export interface CheckedOneTimeToken {
  accountKey: string;
  tokenHash: string;
  stored: StoredOneTimeToken;
}

/**
 * The account's outstanding token of this purpose, if the presented one is it and still valid.
 * Every presented secret is counted against the outstanding token before it is compared (a right
 * one is given back: only wrong ones use the limit up, and the token is voided at it); anything wrong is the same
 * `invalid_token`. Expiry is checked here: TTL deletes late.
 */
export async function checkOneTimeToken(
  deps: OneTimeTokenDependencies,
  purpose: OneTimeTokenPurpose,
  presented: string,
): Promise<CheckedOneTimeToken> {
  const reject = (reason: 'malformed' | 'unknown' | 'expired' | 'mismatch'): never => {
    deps.audit({ type: 'auth.one_time_token_rejected', purpose, reason });
    throw new InvalidOneTimeTokenError();
  };
  const token = parseOneTimeToken(presented);
  if (token === undefined) return reject('malformed');
  const stored = await deps.oneTimeTokens.read(purpose, token.accountKey);
  if (stored === undefined) return reject('unknown');
  if (stored.expiresAt <= epochSeconds(deps.now())) return reject('expired');
  // Counted before the comparison: a burst of guesses compares no more than the limit allows.
  const guesses = await deps.oneTimeTokens.reserveGuess(purpose, token.accountKey, stored.tokenHash, deps.recovery.wrongTokenLimit);
  if (guesses === undefined) return reject('unknown');
  const tokenHash = secretHash(token.secret);
  if (!sameHash(tokenHash, stored.tokenHash)) {
    // The last guess it allowed: the token is void, and a new one must be asked for.
    if (guesses >= deps.recovery.wrongTokenLimit) await deps.oneTimeTokens.consume(purpose, token.accountKey, stored.tokenHash);
    return reject('mismatch');
  }
  await deps.oneTimeTokens.giveBackGuess(purpose, token.accountKey, stored.tokenHash);
  return { accountKey: token.accountKey, tokenHash, stored };
}

/** Uses the token: of two racing uses exactly one gets here, the other gets `invalid_token`. */
export async function consumeOneTimeToken(
  deps: Pick<OneTimeTokenDependencies, 'oneTimeTokens' | 'audit'>,
  purpose: OneTimeTokenPurpose,
  checked: CheckedOneTimeToken,
): Promise<void> {
  if (!(await deps.oneTimeTokens.consume(purpose, checked.accountKey, checked.tokenHash))) {
    deps.audit({ type: 'auth.one_time_token_rejected', purpose, reason: 'used' });
    throw new InvalidOneTimeTokenError();
  }
}
