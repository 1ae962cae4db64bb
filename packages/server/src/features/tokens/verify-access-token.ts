import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { InvalidTokenError, type InvalidTokenReason } from './errors.js';
import { ACCESS_TOKEN_TYPE } from './issue-access-token.js';
import type { PublicKeyring } from './keys.js';

/**
 * Verifies an access token against the keyring. The header's `kid` must name one of our keys and
 * its `alg` must be that key's algorithm, so `none`, HS256-with-the-public-key and cross-key
 * tricks fail before any signature check. Then jose checks signature, `typ`, `iss`, `aud`, `exp`;
 * last, where one is required, the scope.
 */
export interface VerifyAccessTokenOptions {
  issuer: string;
  audience: string;
  /** Allowed clock skew for `exp`/`iat`. Small: tokens are short-lived anyway. */
  clockToleranceSeconds?: number;
  /** Tokens claiming to be older than this are rejected, whatever their `exp` says. */
  maxTokenAgeSeconds?: number;
  /** A token whose `scope` lacks this one is rejected (`scope`), after every other check. */
  requiredScope?: string;
  now?: Date;
}

export interface VerifiedAccessToken {
  userId: string;
  issuedAt: Date;
  expiresAt: Date;
  tokenId: string;
  /** The session (`sid`), when the token was issued for one. */
  sessionId?: string;
  /** Its `scope`, split at spaces; empty without one. */
  scopes: string[];
  /** Its `amr` (RFC 8176); empty without one (tokens from before second factors: a password login). */
  amr: string[];
  /** Its `auth_time`: when the session's login happened. */
  authTime?: Date;
}

export const DEFAULT_CLOCK_TOLERANCE_S = 5;
/** Far longer than any real token (the TTL is capped at a day): a cheap bound on parsing work. */
const MAX_TOKEN_LENGTH = 8192;

export async function verifyAccessToken(
  keyring: PublicKeyring,
  token: string,
  options: VerifyAccessTokenOptions,
): Promise<VerifiedAccessToken> {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError('malformed');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new InvalidTokenError('malformed');
  }
  const key = typeof header.kid === 'string' ? keyring.verificationKeys.get(header.kid) : undefined;
  if (key === undefined) throw new InvalidTokenError('unknown-key');
  if (header.alg !== key.alg) throw new InvalidTokenError('algorithm');

  try {
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: [key.alg],
      typ: ACCESS_TOKEN_TYPE,
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'iat', 'exp', 'jti'],
      ...(options.maxTokenAgeSeconds !== undefined && { maxTokenAge: options.maxTokenAgeSeconds }),
      ...(options.now !== undefined && { currentDate: options.now }),
    });
    const { sub, iat, exp, jti, sid, scope, amr, auth_time: authTime } = payload;
    if (typeof sub !== 'string' || sub === '' || typeof jti !== 'string' || iat === undefined || exp === undefined) {
      throw new InvalidTokenError('claims');
    }
    if (sid !== undefined && (typeof sid !== 'string' || sid === '')) throw new InvalidTokenError('claims');
    if (scope !== undefined && typeof scope !== 'string') throw new InvalidTokenError('claims');
    if (amr !== undefined && (!Array.isArray(amr) || !amr.every((method) => typeof method === 'string'))) throw new InvalidTokenError('claims');
    if (authTime !== undefined && (typeof authTime !== 'number' || !Number.isSafeInteger(authTime))) throw new InvalidTokenError('claims');
    const scopes = scope === undefined ? [] : scope.split(' ').filter((token) => token !== '');
    // Last: a token refused for its scope is good otherwise (the API answers `insufficient_scope`).
    if (options.requiredScope !== undefined && !scopes.includes(options.requiredScope)) throw new InvalidTokenError('scope');
    return {
      userId: sub,
      issuedAt: new Date(iat * 1000),
      expiresAt: new Date(exp * 1000),
      tokenId: jti,
      ...(sid !== undefined && { sessionId: sid }),
      scopes,
      amr: (amr as string[] | undefined) ?? [],
      ...(authTime !== undefined && { authTime: new Date((authTime as number) * 1000) }),
    };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof errors.JOSEError) throw new InvalidTokenError(reasonFor(error));
    throw error; // not a verdict on the token but a bug: let it surface as an `internal_error`
  }
}

function reasonFor(error: errors.JOSEError): InvalidTokenReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return 'claims';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm';
  return 'malformed';
}
