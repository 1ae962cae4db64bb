/**
 * Typed token errors. Callers branch on `code` (stable strings, like jose's `ERR_*`) or on
 * `instanceof`. Messages never contain token contents or key material, so they are safe to log.
 */
export type TokenErrorCode = 'ERR_TOKEN_INVALID' | 'ERR_TOKEN_CONFIG';

export abstract class TokenError extends Error {
  abstract readonly code: TokenErrorCode;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Why a token was rejected: coarse on purpose, for logs and metrics, never for the client. */
export type InvalidTokenReason = 'malformed' | 'unknown-key' | 'algorithm' | 'signature' | 'expired' | 'claims' | 'scope';

/**
 * The access token was rejected. The API answers `unauthenticated` with the same body whatever
 * the reason, so clients learn nothing about which check failed; but `scope` (a good token
 * without the required scope) is `insufficient_scope`, since a new token would not help. No `cause`: jose's errors carry the
 * decoded payload, which must not reach logs.
 */
export class InvalidTokenError extends TokenError {
  readonly code = 'ERR_TOKEN_INVALID';

  constructor(readonly reason: InvalidTokenReason) {
    super(`access token rejected (${reason})`);
  }
}

/**
 * Key or token settings are missing or invalid. Names the setting and what is wrong with it,
 * never its value (no `cause` either: JSON.parse errors quote the input).
 */
export class TokenConfigError extends TokenError {
  readonly code = 'ERR_TOKEN_CONFIG';
}
