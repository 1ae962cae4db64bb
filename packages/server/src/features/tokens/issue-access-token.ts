import type { Keyring } from './keys.js';
import { signCompactJws } from './sign-jws.js';

/**
 * Issues a short-lived access token: `sub` is the user id, `jti` a random UUID (so a token can be
 * told apart from another issued in the same second, e.g. for a deny-list), `kid` names the key.
 * `typ: at+jwt` and `client_id` (RFC 9068) keep it from being mistaken for any other JWT signed
 * with the same key, and let strict RFC 9068 validators accept it; `scope` is there when
 * configured (what API Gateway's `authorizationScopes` read).
 */
export interface AccessTokenConfig {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clientId: string;
  /** Joined by spaces into `scope`; none: no `scope` claim. */
  scopes: readonly string[];
}

export interface IssueAccessTokenInput {
  userId: string;
  /** The session the token belongs to (`sid`), so its end can be seen by verifiers that check. */
  sessionId?: string;
  /** OpenID Connect's `email_verified`: whether the owner proved the mailbox. */
  emailVerified?: boolean;
  /** When the login that started the session happened (OIDC's `auth_time`): kept across refreshes. */
  authTime?: Date;
  /** How that login authenticated (RFC 8176 `amr`): `pwd`, and `otp` and `mfa` after a second factor. */
  amr?: readonly string[];
  /**
   * A token hook's claims (src/hooks), already checked there: none of passlane's own names. They
   * are written first, so passlane's claims would win even if one slipped through.
   */
  claims?: Readonly<Record<string, unknown>>;
  /** Defaults to the current time; injectable for tests. */
  now?: Date;
}

/** Shaped like an OAuth 2.0 token response (RFC 6749 §5.1) in camelCase. */
export interface IssuedAccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds until expiry. */
  expiresIn: number;
  /** The token's `scope` (space-separated), when it has one: RFC 6749 §5.1's `scope`. */
  scope?: string;
}

export const ACCESS_TOKEN_TYPE = 'at+jwt';

export async function issueAccessToken(
  keyring: Keyring,
  config: AccessTokenConfig,
  { userId, sessionId, emailVerified, authTime, amr, claims: extra, now = new Date() }: IssueAccessTokenInput,
): Promise<IssuedAccessToken> {
  if (typeof userId !== 'string' || userId === '') throw new TypeError('userId must be a non-empty string');
  const { kid, alg, sign } = keyring.current;
  const issuedAt = Math.floor(now.getTime() / 1000);
  const scope = config.scopes.length > 0 ? config.scopes.join(' ') : undefined;
  const claims = {
    ...extra,
    iss: config.issuer,
    aud: config.audience,
    sub: userId,
    client_id: config.clientId,
    iat: issuedAt,
    exp: issuedAt + config.ttlSeconds,
    jti: crypto.randomUUID(),
    ...(scope !== undefined && { scope }),
    ...(sessionId !== undefined && { sid: sessionId }),
    ...(emailVerified !== undefined && { email_verified: emailVerified }),
    ...(authTime !== undefined && { auth_time: Math.floor(authTime.getTime() / 1000) }),
    ...(amr !== undefined && { amr: [...amr] }),
  };
  const accessToken = await signCompactJws({ alg, kid, typ: ACCESS_TOKEN_TYPE }, claims, sign);
  return { accessToken, tokenType: 'Bearer', expiresIn: config.ttlSeconds, ...(scope !== undefined && { scope }) };
}
