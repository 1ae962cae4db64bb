import type { IssueAccessTokenInput, IssuedAccessToken } from './issue-access-token.js';
import type { PublicTokenService } from './token-service.js';
import type { VerifiedAccessToken } from './verify-access-token.js';

/**
 * What the use cases ask of access tokens: login and refresh issue them, the routes taking a
 * Bearer token verify them. The jose-based TokenService (token-service.ts) does both; a
 * PublicTokenService, from the public keys alone, verifies only.
 */
export interface AccessTokens {
  issue(input: IssueAccessTokenInput): Promise<IssuedAccessToken>;
  /** The `client_id` the issued tokens carry (RFC 9068), where the service issues any. */
  readonly clientId?: string;
  verify(token: string): Promise<Pick<VerifiedAccessToken, 'userId' | 'issuedAt' | 'sessionId' | 'amr'>>;
}

/** The JWKS and discovery routes: the published keys and claims settings, no table or hasher. */
export interface PublicTokenServices {
  publicTokens(): Promise<PublicTokenService>;
}
