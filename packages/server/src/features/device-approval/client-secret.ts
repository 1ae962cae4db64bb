import { parseOneTimeToken } from '../recovery/one-time-token.js';
import { sameHash, secretHash } from '../sessions/refresh-token.js';

/** At most this many presented secrets are looked at (a browser keeps a cookie per account it asked for). */
export const MAX_PRESENTED_CLIENT_SECRETS = 8;

/**
 * Whether one of the presented client secrets (a body field, cookies) is the one the approval was
 * asked with: of this account, and hashing to what the approval keeps. Anything else (another
 * account's, a malformed one, none) is another client.
 */
export function isAskingClient(accountKey: string, clientHash: string, presented: readonly string[]): boolean {
  return presented.slice(0, MAX_PRESENTED_CLIENT_SECRETS).some((value) => {
    const secret = parseOneTimeToken(value);
    return secret?.accountKey === accountKey && sameHash(secretHash(secret.secret), clientHash);
  });
}
